"""Division that rounds, and its remainder: ``//`` (``floor_divide``), ``%`` (``remainder``) and
``div(..., rounding_mode="trunc"|"floor")``, with their in-place forms.

The result keeps torch's promoted dtype (no float promotion, unlike ``/``); a Python int operand
is read in it (:func:`~ownership.ops.python_numbers.operand_in`). An integer division by zero is
torch's ``RuntimeError: ZeroDivisionError``; a floating one gives ``inf``/``nan`` as ``a / b``.
Bool has no kernel. ``floor_divide`` (and a number divided or reduced by a tensor) records
torch's ``NotImplemented`` node, whose backward raises; ``remainder`` records
``RemainderBackward0`` (a number divisor) or ``RemainderBackward1`` (saving both tensors);
a rounding ``div`` records ``DivBackward2`` (its gradient is zero, save for ``rounding_mode=None``,
which is true division).

>>> import ownership
>>> a = ownership.tensor([7, -7])
>>> a // 2, a % 2, a.div(2, rounding_mode="trunc")
(tensor([ 3, -4]), tensor([1, 1]), tensor([ 3, -3]))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import check_no_overlap, check_result, run_inplace
from ownership.core.tensor import Tensor
from ownership.ops.arithmetic import binary_node, bw_div, wrapped_scalar
from ownership.ops.common import (
    check_broadcast,
    inputs_needed,
    lay_out,
    needs_grad,
    operand,
    result_dtype,
    run_op,
    sum_to,
    wrap,
)
from ownership.ops.inplace import snapshot
from ownership.ops.loop_order import Kernel
from ownership.ops.python_numbers import operand_in

MODES = (None, "trunc", "floor")
NOT_IMPLEMENTED = "torch::autograd::NotImplemented"  # the node's name(); its repr drops the prefix


def check_mode(mode: Any) -> None:
    """torch's refusal of a rounding mode it does not know."""
    if mode not in MODES:
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'"
        )


def _values(x: Any, y: Any, kernel: str, dt: dtypes.dtype) -> NDArray[Any]:
    """The kernel ``kernel`` (``div_floor``, ``div_trunc``, ``remainder``) of ``x`` and ``y``,
    numpy values in ``dt``, as torch computes it, after its refusals (no Bool kernel; no integer
    division by zero)."""
    if dt is dtypes.bool_:
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for 'Bool'")
    x = np.asarray(x).astype(dt.np, copy=False)
    y = np.asarray(y).astype(dt.np, copy=False)
    if not dt.is_floating_point and np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")
    if kernel == "div_floor":  # numpy's floor division is torch's (a / b where b == 0)
        return np.asarray(np.floor_divide(x, y))
    if kernel == "div_trunc":
        if dt.is_floating_point:
            return np.asarray(np.trunc(np.true_divide(x, y)))
        q = np.floor_divide(x, y)
        return np.asarray(q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))))
    if not dt.is_floating_point:
        return np.asarray(np.remainder(x, y))
    mod = np.fmod(x, y)  # torch: fmod, plus b where the signs differ (a zero keeps fmod's sign)
    return np.asarray(np.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod))


def _not_implemented(op: str) -> Callable[[OpNode, Saved, Grads], Grads]:
    def bw(node: OpNode, s: Saved, g: Grads) -> Grads:
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    return bw


_NO_FLOOR_DIVIDE = _not_implemented("floor_divide")
_NO_REMAINDER = _not_implemented("remainder")
_NO_FLOOR_DIVIDE_ = _not_implemented("floor_divide_")


def _compute(a: Tensor, b: Any, kernel: str) -> tuple[Any, Tensor]:
    """``b`` as torch takes it and the result tensor of ``kernel(a, b)``."""
    b = operand(b)
    dt = result_dtype(a, b)
    check_broadcast(a, b)
    out = wrap(_values(a._data, operand_in(b, dt), kernel, dt), dt)
    lay_out(out, a, b, common=dt)
    return b, out


def _differentiable(*operands: Any) -> tuple[Tensor, ...]:
    """The inputs a ``NotImplemented`` node has edges to: the tensors that require grad."""
    return tuple(x for x in operands if isinstance(x, Tensor) and x.requires_grad)


def floor_divide(a: Tensor, b: Any) -> Tensor:
    """``a // b``: the quotient rounded down (torch's ``NotImplemented`` node)."""
    b = operand(b)
    return run_op(
        _differentiable(a, b),
        needs_grad(a, b),
        lambda: _compute(a, b, "div_floor")[1],
        NOT_IMPLEMENTED,
        _NO_FLOOR_DIVIDE,
    )


def _reflected(a: Tensor, b: Any, kernel: str, backward: Any) -> Tensor:
    """``b <kernel> a`` for a number ``b``: torch's ``NotImplemented`` node, one edge (to ``a``)."""
    b = operand(b)

    def compute() -> Tensor:
        dt = result_dtype(a, b)
        return wrap(_values(operand_in(b, dt), a._data, kernel, dt), dt)

    return run_op((a,), needs_grad(a), compute, NOT_IMPLEMENTED, backward)


def rfloordiv(a: Tensor, b: Any) -> Tensor:
    """``b // a`` for a number ``b`` (one edge, to ``a``)."""
    return _reflected(a, b, "div_floor", _NO_FLOOR_DIVIDE)


def _bw_remainder(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d remainder(self, other) = d self - floor(self / other) * d other."""
    gr = g[0]
    self_shape, other_shape = node.input_shapes
    needed = node.needed
    d_self = sum_to(gr, self_shape) if needed[0] else None
    if len(needed) == 1:
        return (d_self,)
    d_other = None
    if needed[1]:
        quotient = div_rounded(s["self"], s["other"], "floor")  # torch's formula: no gradient
        d_other = sum_to(-gr * quotient, other_shape)
    return (d_self, d_other)


def remainder(a: Tensor, b: Any) -> Tensor:
    """``a % b``: the remainder with the divisor's sign (Python's ``%``). ``RemainderBackward1``
    for a tensor divisor (saves both when it needs a gradient), ``RemainderBackward0`` for a
    number (saves nothing)."""
    b = operand(b)
    tensor_b = isinstance(b, Tensor)

    def save(node: OpNode) -> None:
        if tensor_b:
            _, other_needed = binary_node(node, a, b)
            node.save("other", b if other_needed else None)  # torch's order: other, then self
            node.save("self", a if other_needed else None)
        else:
            inputs_needed(node)
            node.input_shapes = (a._data.shape, ())

    return run_op(
        (a, b) if tensor_b else (a,),
        needs_grad(a, b),
        lambda: _compute(a, b, "remainder")[1],
        "RemainderBackward1" if tensor_b else "RemainderBackward0",
        _bw_remainder,
        save=save,
    )


def rremainder(a: Tensor, b: Any) -> Tensor:
    """``b % a`` for a number ``b`` (torch's ``NotImplemented`` node, one edge)."""
    return _reflected(a, b, "remainder", _NO_REMAINDER)


def _bw_div_rounded(node: OpNode, s: Saved, g: Grads) -> Grads:
    """The backward of ``DivBackward2``: true division's without a rounding mode, else zeros."""
    if s["rounding_mode"] is None:
        return bw_div(node, s, g)
    gr = g[0]
    return tuple(
        Tensor._wrap(np.zeros(shape, gr._data.dtype), gr.dtype) if needed else None
        for shape, needed in zip(node.input_shapes, node.needed, strict=True)
    )


def _save_div(node: OpNode, a: Tensor, b: Any, self_value: Tensor) -> None:
    """What ``DivBackward2`` saves: ``other`` if self needs grad, ``self`` if other does."""
    self_needed, other_needed = binary_node(node, a, b)
    if not self_needed:
        node.save("other", None)
    elif isinstance(b, Tensor):
        node.save("other", b)
    else:  # a wrapped number
        node.save_number("other", b, wrapped_scalar)
    node.save("self", self_value if other_needed else None)


def _div_kernel(mode: Any) -> str:
    return "div_floor" if mode == "floor" else "div_trunc"


def div_rounded(a: Tensor, b: Any, rounding_mode: Any) -> Tensor:
    """``div(a, b, rounding_mode=...)`` (``DivBackward2``): ``None`` is true division."""
    check_mode(rounding_mode)
    b = operand(b)

    def kernel() -> Tensor:
        dt = result_dtype(a, b)
        check_broadcast(a, b)
        if rounding_mode is None:  # true division, in the default float dtype for integers
            dt = dt if dt.is_floating_point else dtypes.get_default_dtype()
            out = wrap(np.true_divide(a._data, operand_in(b, dt)), dt)
        else:
            out = wrap(_values(a._data, operand_in(b, dt), _div_kernel(rounding_mode), dt), dt)
        lay_out(out, a, b, common=dt)
        return out

    return run_op(
        (a, b),
        needs_grad(a, b),
        kernel,
        "DivBackward2",
        _bw_div_rounded,
        {"rounding_mode": rounding_mode},
        lambda node: _save_div(node, a, b, a),
    )


def _inplace(
    a: Tensor,
    b: Any,
    kernel: str,
    name: str,
    backward: Callable[[OpNode, Saved, Grads], Grads],
    ctx: dict[str, Any] | None = None,
    save: Callable[[OpNode, Any], None] | None = None,
    number_edge: bool = False,
    differentiable_only: bool = False,
) -> Tensor:
    """``kernel(a, b)`` written into ``a`` under the in-place contract (the result must fit
    ``a``'s shape and dtype before the kernel's own refusals); ``number_edge``: a number
    divisor still has an (empty) edge, as torch's ``div_`` wraps it as a tensor;
    ``differentiable_only``: ``a`` and a tensor divisor have an edge only if they require grad
    (torch's ``NotImplemented`` node)."""
    b = operand(b)
    dt = result_dtype(a, b)
    if kernel == "div_true" and not dt.is_floating_point:
        dt = dtypes.get_default_dtype()
    rb = operand_in(b, dt)

    def compute() -> NDArray[Any]:
        if isinstance(b, Tensor) and tensor_b is None:  # a divisor without an edge: checked here
            check_no_overlap(a, (b,))
        check_broadcast(a, b)
        check_result(a, layout.broadcast_shapes(a._data.shape, np.shape(rb)), dt)
        return values(a._data, rb)

    def values(x: Any, y: Any) -> NDArray[Any]:  # torch's kernel: vectorized for floats only
        if kernel == "div_true":
            return np.asarray(np.true_divide(x, y))
        return _values(x, y, kernel, dt)

    tensor_b = b if isinstance(b, Tensor) else None
    if differentiable_only and tensor_b is not None and not tensor_b.requires_grad:
        tensor_b = None
    return run_inplace(
        a,
        (tensor_b,) if tensor_b is not None or number_edge else (),
        needs_grad(a, b),
        compute,
        dt,
        name,
        backward,
        ctx,
        None if save is None else (lambda node: save(node, b)),
        self_edge=not differentiable_only or a.requires_grad,
        kernel=lambda: Kernel(values, vectorized=dt.is_floating_point),
        reads=(a._data, rb),
    )


def floor_divide_(a: Tensor, b: Any) -> Tensor:
    """``a //= b`` (torch's ``NotImplemented`` node)."""
    return _inplace(a, b, "div_floor", NOT_IMPLEMENTED, _NO_FLOOR_DIVIDE_, differentiable_only=True)


def remainder_(a: Tensor, b: Any) -> Tensor:
    """``a %= b`` (``RemainderBackward0``/``1``)."""

    def save(node: OpNode, b: Any) -> None:
        if isinstance(b, Tensor):
            _, other_needed = binary_node(node, a, b)
            node.save("self", snapshot(a) if other_needed else None)
            node.save("other", b if other_needed else None)
        else:
            inputs_needed(node)
            node.input_shapes = (a._data.shape, ())

    tensor_b = isinstance(operand(b), Tensor)
    name = "RemainderBackward1" if tensor_b else "RemainderBackward0"
    return _inplace(a, b, "remainder", name, _bw_remainder, None, save)


def div_rounded_(a: Tensor, b: Any, rounding_mode: Any) -> Tensor:
    """``a.div_(b, rounding_mode=...)`` (``DivBackward2``)."""
    check_mode(rounding_mode)
    kernel = "div_true" if rounding_mode is None else _div_kernel(rounding_mode)

    def save(node: OpNode, b: Any) -> None:
        other_needed = node._edges[1][0] is not None
        _save_div(node, a, b, snapshot(a) if other_needed else a)

    ctx = {"rounding_mode": rounding_mode}
    return _inplace(a, b, kernel, "DivBackward2", _bw_div_rounded, ctx, save, number_edge=True)
