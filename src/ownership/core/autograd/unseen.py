"""Whether a gradient is unseen: nobody outside the engine holds the tensor or its memory.

torch's backward writes into a gradient buffer only when nobody else can see it: its input
buffers sum in place only into a tensor whose ``use_count()`` and storage ``use_count()`` are 1,
and AccumulateGrad steals an incoming gradient only when its ``use_count()`` is 1; otherwise they
allocate. The same question is asked here of Python's reference counts. The count of an object
that only the caller holds is measured once at import (through the same call path), so the
answer does not depend on how an interpreter counts its own temporary references.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

_BASELINE = 0


def spare_refs(obj: object) -> int:
    """How many references to ``obj`` exist besides one local variable of the caller
    (AccumulateGrad's test of a gradient it may steal: ``spare_refs(grad) < held``)."""
    return sys.getrefcount(obj) - _BASELINE


def _probe() -> int:
    probe = object()
    return spare_refs(probe)


_BASELINE = _probe()


def memory_unseen(t: Any, held: int) -> bool:
    """Whether no more than ``held`` references (the engine's own, the caller's variables
    included) refer to ``t``, and its memory is its own: no view, ``detach()``, ``.data`` or numpy
    array shares it (the input buffers' test)."""
    if spare_refs(t) > held:
        return False
    arr = t._data
    st = t._lazy_storage  # None: never made, so no view, detach() or .data alias shares it
    if not arr.flags.owndata:
        # a window on memory owned elsewhere, unless on a buffer of its own that only this
        # array holds (a result laid out with strides numpy would not pick)
        base = arr.base
        return (
            st is None
            and type(base) is np.ndarray
            and base.flags.owndata
            and spare_refs(base) == 1  # held by ``arr`` only
            and spare_refs(arr) == 1  # held by ``t`` only
        )
    known = 1  # t._data
    if st is not None:
        if spare_refs(st) != 1:  # t's own reference only: a view or an alias shares the Storage
            return False
        for name in ("_source", "_buffer"):
            if getattr(st, name) is not None:
                if not _window_of(getattr(st, name), arr):
                    return False
                known += 1
    return spare_refs(arr) == known


def _window_of(other: Any, arr: Any) -> bool:
    """``other`` (held only by the storage) is ``arr`` or a view of it that nobody else views."""
    return other is arr or (other.base is arr and spare_refs(other) == 1)
