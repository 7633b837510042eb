"""Comparisons and logical ops: elementwise, broadcasting, bool results, never differentiable;
and ``where``, which selects by such a result and is differentiable in its two values (torch keeps
it with the comparisons too, in ``TensorCompare.cpp``).

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> (x > 1.5), (x > 1.5).requires_grad
(tensor([False,  True,  True]), False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.tensor import Tensor
from ownership.ops.common import (
    check_broadcast,
    lay_out,
    needs_grad,
    operand,
    raw,
    result_dtype,
    result_type,
    run_op,
    scalar_dtype,
    sum_to,
    wrap,
)
from ownership.ops.python_numbers import int_in, int_parameter, refuse_uint64


def _compare(fn: Any) -> Callable[[Tensor, Any], Tensor]:
    """An elementwise comparison of a tensor with a tensor or number (broadcast), as a bool tensor."""

    def op(a: Tensor, b: Any) -> Tensor:
        b = operand(b)
        check_broadcast(a, b)
        # a Python int is compared in the dtype torch computes in (int32 < 2**32 compares with 0)
        common = result_dtype(a, b)
        rb = int_in(b, common) if type(b) is int else raw(b)
        out = wrap(fn(a._data, rb), dtypes.bool_)
        lay_out(out, a, b, common=common)
        return out

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


def where(cond: Tensor, a: Any, b: Any) -> Tensor:
    """Elementwise ``a if cond else b`` (``WhereBackward0``); ``cond`` must be a bool tensor.
    The node is made and the condition saved before the kernel's checks (:func:`run_op`)."""
    at = a if isinstance(a, Tensor) else None
    bt = b if isinstance(b, Tensor) else None
    sa = at._data.shape if at is not None else ()
    sb = bt._data.shape if bt is not None else ()

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        # torch's formulas: ``where(condition, grad, 0)`` and ``where(condition, 0, grad)``
        # (laid out by the condition first; ``WhereBackward0`` again under create_graph)
        mask = s["condition"]  # unpacked: a condition written in place since raises
        return (
            sum_to(where(mask, g[0], 0), sa) if at is not None else None,
            sum_to(where(mask, 0, g[0]), sb) if bt is not None else None,
        )

    return run_op(
        (at, bt),  # torch: no edge for the condition
        needs_grad(cond, at, bt),  # the condition is an operand: a normal one brings autograd in
        lambda: _where_kernel(cond, a, b, at, bt),
        "WhereBackward0",
        bw,
        save=lambda node: node.save("condition", cond),
    )


def _where_kernel(cond: Tensor, a: Any, b: Any, at: Tensor | None, bt: Tensor | None) -> Tensor:
    """:func:`where`'s kernel: its checks in torch's order, then its values (``at``, ``bt``:
    ``a`` and ``b`` when tensors)."""
    if cond.dtype is not dtypes.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{cond.dtype.short}"
        )
    # torch's kernel: the condition's dtype, then the shapes, then the result type
    layout.broadcast_shapes(*(x._data.shape for x in (cond, at, bt) if x is not None))
    ra = a._data if at is not None else a
    rb = b._data if bt is not None else b
    # torch's result type: tensors with dimensions, then 0-d tensors, then Python scalars (which
    # take the default dtype when floating)
    ts = [t for t in (at, bt) if t is not None]
    numbers = [x for x in (a, b) if not isinstance(x, Tensor)]
    refuse_uint64([t.dtype for t in ts], *numbers)
    dt = result_type(
        [t.dtype for t in ts if t._data.ndim],
        [t.dtype for t in ts if not t._data.ndim],
        [scalar_dtype(x) for x in numbers],
    )
    for x in numbers:  # a number value is converted to the result dtype, checked
        int_parameter(x, dt)
    out = wrap(np.where(cond._data, ra, rb), dt)
    lay_out(out, a, b, common=dt, condition=cond)
    return out


eq = _compare(np.equal)
ne = _compare(np.not_equal)
lt = _compare(np.less)
le = _compare(np.less_equal)
gt = _compare(np.greater)
ge = _compare(np.greater_equal)
logical_and = _compare(np.logical_and)
logical_or = _compare(np.logical_or)


def _test(fn: Any) -> Callable[[Tensor], Tensor]:
    """An elementwise test of one tensor, as a bool tensor (an integer or bool tensor holds no
    NaN nor infinity)."""

    def op(a: Tensor) -> Tensor:
        return wrap(fn(a._data), dtypes.bool_)

    return op


isnan = _test(np.isnan)
isinf = _test(np.isinf)
isfinite = _test(np.isfinite)
logical_not = _test(np.logical_not)
