"""``searchsorted``: where each value would go in a sorted sequence to keep it sorted.

torch's CPU kernel, step for step: a binary search per value (``!(b >= v)`` moves right for the
left side, ``!(b > v)`` for the right side), so a NaN among the boundaries lands where torch's
search puts it, not where a NaN-aware sort would; a 1-d sequence serves every value, an n-d one
a row of values per row of boundaries; ``sorter`` reads the boundaries in its order. The result
is int64 (int32 with ``out_int32``) and records nothing: an index has no gradient.

>>> import ownership
>>> searchsorted(ownership.tensor([1.0, 3.0, 5.0, 7.0]), ownership.tensor([3.0, 6.0, 9.0]))
tensor([1, 3, 4])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes
from ownership.core.binder import Signatures
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_once
from ownership.ops.common import result_type, scalar_dtype

_SIGNATURE = "*, bool out_int32 = False, bool right = False, str side = None, Tensor sorter = None"
PARSER = Signatures(
    "searchsorted",
    f"(Tensor sorted_sequence, Tensor input, {_SIGNATURE}, Tensor out = None)",
    f"(Tensor sorted_sequence, Number self, {_SIGNATURE}, Tensor out = None)",
)
_NAME = "torch.searchsorted():"


def _warn_non_contiguous(what: str, t: Tensor | None) -> None:
    """torch's warning, once per program, that a non-contiguous operand is copied first."""
    if t is None or t._is_contiguous():
        return
    warn_once(
        f"{_NAME} {what} tensor is non-contiguous, this will lower the performance due to extra "
        "data copy when converting non-contiguous tensor to contiguous, please use contiguous "
        f"{what} tensor if possible. This message will only appear once per program.",
        stacklevel=3,
    )


def _right_side(right: bool, side: str | None) -> bool:
    """Whether the search takes the right side (torch's checks of ``side`` against ``right``)."""
    if side is None:
        return right
    if side not in ("left", "right"):
        raise RuntimeError(f"{_NAME} side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError(
            f"{_NAME} side and right can't be set to opposites, got side of left while right "
            "was True"
        )
    return side == "right"


def _check(boundaries: Tensor, values: Tensor, scalar: bool, sorter: Tensor | None) -> None:
    """torch's ``searchsorted_pre_check``, in its order."""
    b, v = boundaries._data, values._data
    if sorter is not None:
        if sorter.dtype is not dtypes.int64:
            raise RuntimeError(
                f"{_NAME} sorter must be a tensor of long dtype but got dtype {sorter.dtype.short}"
            )
        if sorter._data.shape != b.shape:
            raise RuntimeError(
                f"{_NAME} boundary and sorter must have the same size, but got boundary tensor "
                f"{list(b.shape)}and got sorter tensor {list(sorter._data.shape)}"
            )
    if b.ndim == 0:
        raise RuntimeError(
            f"{_NAME} boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if (scalar or v.ndim == 0) and b.ndim != 1:
        raise RuntimeError(
            f"{_NAME} input value can be a scalar only when boundaries tensor dimension is 1, but "
            f"we got boundaries tensor dim({b.ndim}) and input value's dim({v.ndim}) "
            f"numel({v.size})"
        )
    if b.ndim != 1 and (b.ndim != v.ndim or b.shape[:-1] != v.shape[:-1]):
        raise RuntimeError(
            f"{_NAME} boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            "boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(b.shape)} and input value tensor {list(v.shape)}"
        )
    if boundaries.dtype is dtypes.bool_:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    if sorter is not None and sorter._data.size:
        s = sorter._data
        if int(s.min()) < 0 or int(s.max()) >= b.shape[-1]:
            raise RuntimeError(f"{_NAME} sorter index out of range")


def _binary_search(b: NDArray[Any], v: NDArray[Any], right: bool) -> NDArray[np.int64]:
    """Each row of ``v`` searched in the same row of ``b`` (both 2-d), all values at once, one
    halving per pass, with torch's comparisons."""
    rows = np.arange(b.shape[0])[:, None]
    start = np.zeros(v.shape, np.int64)
    end = np.full(v.shape, b.shape[1], np.int64)
    while True:
        active = start < end
        if not active.any():
            return start
        mid = (start + end) >> 1
        mid_val = b[rows, np.minimum(mid, b.shape[1] - 1)]
        before = ~(mid_val > v) if right else ~(mid_val >= v)
        start = np.where(active & before, mid + 1, start)
        end = np.where(active & ~before, mid, end)


def searchsorted(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
    sorter=None)``: the insertion indices of ``input`` (a tensor or a number)."""
    which, a = PARSER.parse(args, kwargs)
    boundaries: Tensor = a["sorted_sequence"]
    scalar = which == 1
    values: Tensor = Tensor._wrap(np.asarray(a["self"])) if scalar else a["input"]
    sorter: Tensor | None = a["sorter"]
    right = _right_side(a["right"], a["side"])
    _check(boundaries, values, scalar, sorter)
    if not scalar:
        _warn_non_contiguous("input value", values)
    _warn_non_contiguous("boundary", boundaries)
    _warn_non_contiguous("sorter", sorter)
    # both read in their result type, torch's (a number is a wrapped number: it takes the
    # boundaries' dtype unless its kind is higher)
    if scalar:
        dt = result_type([boundaries.dtype], [], [scalar_dtype(a["self"])])
    elif values._data.ndim:
        dt = result_type([boundaries.dtype, values.dtype], [], [])
    else:
        dt = result_type([boundaries.dtype], [values.dtype], [])
    b = boundaries._data.astype(dt.np, copy=False)
    if sorter is not None:
        b = np.take_along_axis(b, sorter._data, axis=-1)
    v = values._data.astype(dt.np, copy=False)
    shape = v.shape
    if b.ndim == 1:
        found = _binary_search(b[None], v.reshape(1, -1), right)
    else:
        found = _binary_search(b.reshape(-1, b.shape[-1]), v.reshape(-1, shape[-1]), right)
    out_dt = dtypes.int32 if a["out_int32"] else dtypes.int64
    return Tensor._wrap(found.reshape(shape).astype(out_dt.np), out_dt)
