"""Comparisons and logical ops: elementwise, broadcasting, bool results, never differentiable.

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> (x > 1.5), (x > 1.5).requires_grad
(tensor([False,  True,  True]), False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ownership import dtypes
from ownership._tensor import Tensor
from ownership.ops.common import check_broadcast, operand, raw, wrap


def _compare(fn: Any) -> Callable[[Tensor, Any], Tensor]:
    """An elementwise comparison of a tensor with a tensor or number (broadcast), as a bool tensor."""

    def op(a: Tensor, b: Any) -> Tensor:
        b = operand(b)
        check_broadcast(a, b)
        return wrap(fn(a._data, raw(b)), dtypes.bool_)

    return op


def invert(a: Tensor) -> Tensor:
    """``~a``: logical not of a bool tensor, bitwise not of an integer one (not ``logical_not``)."""
    if a.dtype is dtypes.bool_:
        return wrap(~a._data, dtypes.bool_)
    if a.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return wrap(~a._data, a.dtype)


eq = _compare(np.equal)
ne = _compare(np.not_equal)
lt = _compare(np.less)
le = _compare(np.less_equal)
gt = _compare(np.greater)
ge = _compare(np.greater_equal)
logical_and = _compare(np.logical_and)
logical_or = _compare(np.logical_or)
