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

from ownership import dtypes, inference_mode
from ownership._tensor import Tensor
from ownership.layout import preserved
from ownership.ops import checks
from ownership.ops.common import needs_grad, record, wrap


def clone(t: Tensor) -> Tensor:
    """A copy in fresh storage (version 0), ``CloneBackward0``, laid out as torch's
    ``preserve_format`` lays it out (:func:`~ownership.layout.preserved`)."""
    data = t._data
    flags = data.flags
    if data.size and (flags.c_contiguous or flags.f_contiguous):  # numpy's copy is the same
        copied = np.array(data, order="K", copy=True)
    else:  # torch's empty_like(preserve_format), then copy_
        copied = preserved(data, t.stride(), data.dtype)
        if data.size:
            copied[...] = data
    out = Tensor._wrap(copied, t.dtype)
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
    out = wrap(t._data.astype(dt.np), dt)
    if needs_grad(t) and dt.is_floating_point:
        record(out, "ToCopyBackward0", (t,), lambda node, s, g: (g[0].to(src),))
    return inference_mode.copied(t, out)
