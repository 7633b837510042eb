"""Whether a gradient is unseen: nobody outside the engine holds the tensor or its memory.

torch writes into a gradient buffer only when its ``use_count()`` is 1; the same question is asked
here of Python's reference counts, against the count of an object only the caller holds (measured
once at import).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

_BASELINE = 0


def spare_refs(obj: object) -> int:
    """How many references to ``obj`` exist besides one local variable of the caller."""
    return sys.getrefcount(obj) - _BASELINE


def _probe() -> int:
    probe = object()
    return spare_refs(probe)


_BASELINE = _probe()


def memory_unseen(t: Any, held: int) -> bool:
    """Whether at most ``held`` references refer to ``t`` and no view, ``detach()``, ``.data`` or
    numpy array shares its memory."""
    if spare_refs(t) > held:
        return False
    arr = t._data
    if not arr.flags.owndata and not _own_buffer(arr):  # a window on memory owned elsewhere
        return False
    known = 1  # t._data
    st = t._lazy_storage  # None: never made, so no view, detach() or .data alias shares it
    if st is not None:
        if spare_refs(st) != 1:  # t's own reference only: a view or an alias shares the Storage
            return False
        for name in ("_source", "_buffer"):
            if getattr(st, name) is not None:
                if not _window_of(getattr(st, name), arr):
                    return False
                known += 1
    return spare_refs(arr) == known


def _own_buffer(arr: Any) -> bool:
    """``arr`` is the only window on a buffer nobody else holds (``ops.common.lay_out_as``'s)."""
    owner = arr.base
    return type(owner) is np.ndarray and owner.flags.owndata and spare_refs(owner) == 1


def _window_of(other: Any, arr: Any) -> bool:
    """``other`` (held only by the storage) is ``arr`` or a view of it that nobody else views."""
    return other is arr or (other.base is arr and spare_refs(other) == 1)
