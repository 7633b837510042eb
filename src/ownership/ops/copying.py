"""Copies of a tensor: ``clone``, ``contiguous`` and ``to``, each a new storage at version 0 (or
the tensor itself when nothing has to change), each with its backward.

>>> import ownership
>>> x = ownership.zeros(2, 3).t()
>>> y = x.clone()
>>> y.data_ptr() != x.data_ptr(), y._version, x.contiguous().is_contiguous()
(True, 0, True)
>>> x.to(ownership.float32) is x
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import dtypes, inference_mode
from ownership._tensor import Tensor
from ownership.layout import preserved
from ownership.ops import checks
from ownership.ops.common import needs_grad, record, wrap


def preserved_copy(t: Tensor, dtype: dtypes.dtype) -> NDArray[Any]:
    """``t``'s values as ``dtype`` in fresh memory, laid out as torch's ``preserve_format``
    lays out a copy (:func:`~ownership.layout.preserved`): what ``clone`` and ``to`` return."""
    data = t._data
    flags = data.flags
    if data.size and (flags.c_contiguous or flags.f_contiguous):  # numpy's copy is the same
        return np.array(data, dtype=dtype.np, order="K", copy=True)
    # torch's empty_like(preserve_format), then copy_
    copied = preserved(data, t.stride(), dtype.np)
    if data.size:
        copied[...] = data
    return copied


def clone(t: Tensor) -> Tensor:
    """A copy in fresh storage (version 0), ``CloneBackward0``, laid out as torch's
    ``preserve_format`` lays it out (:func:`preserved_copy`)."""
    out = Tensor._wrap(preserved_copy(t, t.dtype), t.dtype)
    if needs_grad(t):
        record(out, "CloneBackward0", (t,), lambda node, s, g: (g[0],))
    return inference_mode.copied(t, out)


def contiguous(t: Tensor) -> Tensor:
    """``t`` itself when contiguous, else a row-major copy (``CloneBackward0``)."""
    if t.is_contiguous():
        return t
    out = Tensor._wrap(np.ascontiguousarray(t._data), t.dtype)
    if needs_grad(t):
        record(out, "CloneBackward0", (t,), lambda node, s, g: (g[0],))
    return out


def to(t: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert to a dtype (``ToCopyBackward0``); ``t`` itself when nothing changes."""
    target = kwargs.get("dtype")
    for a in args:
        checks.device(a)
        if isinstance(a, Tensor):
            target = a.dtype
        elif a is not None and not (isinstance(a, str) or type(a).__name__ == "device"):
            target = a
    dt = dtypes.resolve(target)
    copy = bool(kwargs.get("copy", False))
    if dt is None or (dt is t.dtype and not copy):
        return t
    src = t.dtype
    out = wrap(preserved_copy(t, dt), dt)
    if needs_grad(t) and dt.is_floating_point:
        record(out, "ToCopyBackward0", (t,), lambda node, s, g: (g[0].to(src),))
    return inference_mode.copied(t, out)
