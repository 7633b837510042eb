"""Arithmetic with broadcasting: ``+ - * /`` and their backward (gradients summed to each shape;
``**`` is in :mod:`ownership.ops.power`).

What each op saves is what torch's saves: ``mul`` and ``div`` save an operand only when the other
side's gradient is needed (has an edge), a Python scalar operand as a 0-d tensor; ``add``/``sub``
save nothing.

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> (x * 3).grad_fn.name(), (x + x).grad_fn.name(), (1 / x).grad_fn.name()
('MulBackward0', 'AddBackward0', 'MulBackward0')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ownership.core import dtypes, grad_mode
from ownership.core.autograd.engine import RECORDED, shape_recorded_for
from ownership.core.autograd.node import Grads, OpNode, Saved, shared_context
from ownership.core.op_registry import quiet
from ownership.core.tensor import Tensor
from ownership.ops.common import (
    binary_operands,
    check_broadcast,
    inputs_needed,
    lay_out,
    needs_grad,
    operand,
    python_int,
    raw,
    result_dtype,
    run_op,
    shared_shapes,
    sum_to,
    wrap,
)
from ownership.ops.float_operands import float_operand
from ownership.ops.python_numbers import scaled


# ---------------------------------------------------------------- backward formulas
# Each gradient is summed back to its input's shape (the inputs broadcast in the forward).
def bw_add(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self + alpha * other) = d self + alpha * d other."""
    gr, alpha = g[0], s["alpha"]
    self_needed, other_needed = node.needed
    self_shape, other_shape = node.input_shapes
    d_other = sum_to(gr if alpha == 1 else gr * alpha, other_shape) if other_needed else None
    return (sum_to(gr, self_shape) if self_needed else None, d_other)


def bw_sub(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self - alpha * other) = d self - alpha * d other."""
    gr, alpha = g[0], s["alpha"]
    self_needed, other_needed = node.needed
    self_shape, other_shape = node.input_shapes
    d_other = sum_to(-gr if alpha == 1 else gr * -alpha, other_shape) if other_needed else None
    return (sum_to(gr, self_shape) if self_needed else None, d_other)


def bw_mul(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self * other) = other * d self + self * d other."""
    gr = g[0]
    self_needed, other_needed = node.needed
    self_shape, other_shape = node.input_shapes
    d_self = d_other = None
    if self_needed:
        other = s["other"] if node.other_number is None else node.other_number
        d_self = sum_to(grad_times(gr, other), self_shape)
    if other_needed:
        d_other = sum_to(grad_times(gr, s["self"]), other_shape)
    return (d_self, d_other)


def grad_times(gr: Tensor, other: Any) -> Tensor:
    """``gr * other`` in a backward formula; without the op (the same values and dtype) when
    nothing would be recorded (grad mode off), ``gr`` is floating and ``other`` is a tensor of
    its dtype and shape or a Python float, so that the op's checks cannot fail and its result
    dtype is ``gr``'s (a hook may have changed the gradient: then the op raises its error)."""
    if not grad_mode._state.enabled and gr.dtype.is_floating_point:
        if type(other) is float:
            return _times(gr, other, other)
        if (
            isinstance(other, Tensor)
            and other.dtype is gr.dtype
            and other._data.shape == gr._data.shape
        ):
            return _times(gr, other, other._data)
    out: Tensor = gr * other
    return out


@quiet
def _times(gr: Tensor, other: Any, values: Any) -> Tensor:
    """``gr * other`` as ``mul`` computes it (quiet, as every op) and lays it out (an expanded
    gradient times a tensor with size-1 dims takes that tensor's strides), ``values`` being
    ``other``'s."""
    out = wrap(gr._data * values, gr.dtype)
    lay_out(out, gr, other)
    return out


def bw_div(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self / other) = d self / other - self * d other / other**2."""
    gr = g[0]
    self_needed, other_needed = node.needed
    self_shape, other_shape = node.input_shapes
    other = s["other"] if node.other_number is None else node.other_number
    d_self = d_other = None
    if self_needed:
        d_self = sum_to(gr / other, self_shape)
    if other_needed:
        d_other = sum_to(-gr * s["self"] / (other * other), other_shape)
    return (d_self, d_other)


def bw_reciprocal(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(1 / self) = -result**2 * d self."""
    r = s["result"]
    return (-g[0] * r * r,)


# ---------------------------------------------------------------- the ops
ALPHA_ONE = shared_context({"alpha": 1})
"""The context of an ``add``/``sub`` node of the default ``alpha`` (the int 1), shared by every
such node: nothing writes an add or sub node's context (they save no tensor), and a dict per op
would be most of the bytes a chain of additions keeps."""


def alpha_ctx(alpha: float) -> Saved:
    """The context of an ``add``/``sub`` node: ``{"alpha": alpha}``, shared when the default."""
    return ALPHA_ONE if alpha == 1 and type(alpha) is int else {"alpha": alpha}


def check_alpha(alpha: float) -> None:
    """Read an int ``alpha`` as torch's parser reads an int operand (beyond 64 bits: its
    ``OverflowError``)."""
    if type(alpha) is int:
        python_int(alpha)


def add(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a + alpha * b`` (``AddBackward0``; saves nothing)."""
    b = operand(b)
    check_alpha(alpha)
    recorded = needs_grad(a, b)
    ctx = alpha_ctx(alpha) if recorded else None
    return run_op(
        (a, b), recorded, _add, "AddBackward0", bw_add, ctx, _add_node, args=(a, b, alpha)
    )


def _add(a: Tensor, b: Any, alpha: float) -> Tensor:
    """The kernel of :func:`add`."""
    other, dt = _alpha_times(a, b, alpha, negated=False)
    out = wrap(a._data + other, dt)
    lay_out(out, a, b, common=dt)
    return out


def _alpha_times(a: Tensor, b: Any, alpha: float, *, negated: bool) -> tuple[Any, dtypes.dtype]:
    """``alpha * b`` as ``add`` (``sub``: ``negated``) adds it to ``a``, and the dtype they
    compute in: ``b`` itself for the default ``alpha`` (a Python float as ``a``'s array takes
    it), else :func:`~ownership.ops.python_numbers.scaled`'s product, with its checks."""
    rb, dt = binary_operands(a, b)
    if alpha == 1 and type(alpha) is int:
        return (float_operand(rb, a._data.dtype) if type(rb) is float else rb), dt
    return scaled(rb, alpha, dt, negated=negated), dt


def sub(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a - alpha * b`` (``SubBackward0``)."""
    b = operand(b)
    check_alpha(alpha)
    check_bool_sub(a, b)  # torch's first refusal, before the operands' own checks
    recorded = needs_grad(a, b)
    ctx = alpha_ctx(alpha) if recorded else None
    return run_op(
        (a, b), recorded, _sub, "SubBackward0", bw_sub, ctx, _add_node, args=(a, b, alpha)
    )


def _sub(a: Tensor, b: Any, alpha: float) -> Tensor:
    """The kernel of :func:`sub`."""
    other, dt = _alpha_times(a, b, alpha, negated=True)
    out = wrap(a._data - other, dt)
    lay_out(out, a, b, common=dt)
    return out


def _add_node(node: OpNode, a: Tensor, b: Any, alpha: float) -> None:
    """What an ``add``/``sub`` node keeps: :func:`binary_node`'s (the alpha is in its context)."""
    binary_node(node, a, b)


def check_bool_sub(a: Tensor, b: Any) -> None:
    """torch refuses ``-`` when an operand is a bool tensor, a Python bool counting as one (torch
    wraps it as a 0-d bool tensor: ``x - True`` and ``b - True`` are refused as ``x - b`` and
    ``b - b`` are); ``b`` is an :func:`~ownership.ops.common.operand` (a numpy bool is a float)."""
    a_bool = a.dtype is dtypes.bool_
    b_bool = b.dtype is dtypes.bool_ if isinstance(b, Tensor) else type(b) is bool
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def binary_node(node: OpNode, a: Tensor, b: Any) -> tuple[bool, ...]:
    """Give a binary node what its backward reads besides saved values: the inputs' shapes,
    ``other`` itself when it is a Python number, and which of ``self`` and ``other`` get a
    gradient (returned: it depends on the node's edges, not on ``requires_grad``)."""
    if isinstance(b, Tensor):
        node.input_shapes = shared_shapes((a._data.shape, b._data.shape))
        node.other_number = None
    else:
        node.input_shapes = shared_shapes((a._data.shape, ()))
        node.other_number = b
    if RECORDED:  # torch's formula does not reduce: validate_outputs does, to autograd's shape
        node.input_shapes = tuple(
            None if isinstance(t, Tensor) and shape_recorded_for(t) is not None else shape
            for t, shape in zip((a, b), node.input_shapes, strict=True)
        )
    return inputs_needed(node)


def mul(a: Tensor, b: Any) -> Tensor:
    """``a * b`` (``MulBackward0``): saves ``other`` if a needs grad, ``self`` if b does
    (:func:`save_binary`), before the kernel checks the shapes (:func:`~ownership.ops.common.run_op`:
    a saved inference tensor is refused first)."""
    b = operand(b)
    # the context given here is replaced by save_binary's (no dict made for it)
    return run_op(
        (a, b),
        needs_grad(a, b),
        _mul,
        "MulBackward0",
        bw_mul,
        PRODUCT_CONTEXTS[1][1],
        save_binary,
        args=(a, b),
    )


def _mul(a: Tensor, b: Any) -> Tensor:
    """The kernel of :func:`mul`."""
    rb, dt = binary_operands(a, b)
    arr = a._data
    out = wrap(arr * (float_operand(rb, arr.dtype) if type(rb) is float else rb), dt)
    lay_out(out, a, b, common=dt)
    return out


def wrapped_scalar(b: Any) -> Tensor:
    """A Python scalar operand as torch saves it: a 0-d tensor (int64, float64 or bool)."""
    return Tensor._wrap(np.asarray(b))


def save_binary(node: Any, a: Tensor, b: Any, original: Callable[[], Tensor] | None = None) -> None:
    """What mul and div save: ``other`` when self needs grad, ``self`` when other needs grad
    (for an in-place op, ``original()``: the value before the write, the only one it saves).

    "Needs grad" is torch's ``should_compute_output``: the input has an edge in the graph (a
    view made under no_grad reports requires_grad but has none).
    """
    a_needed, b_needed = binary_node(node, a, b)
    node._ctx = PRODUCT_CONTEXTS[a_needed][b_needed]  # the operands not saved, shown as None
    if a_needed:
        if isinstance(b, Tensor):
            node.save("other", b)
        else:  # a wrapped number: saved as is, saved-tensor hooks never see it
            node.save_number("other", b, wrapped_scalar)
    if b_needed:
        node.save("self", a if original is None else original())


PRODUCT_CONTEXTS = (
    (shared_context({"other": None, "self": None}), shared_context({"other": None})),
    (shared_context({"self": None}), shared_context({})),
)
"""``PRODUCT_CONTEXTS[self_saved][other_saved]``: the context of a product's node
(:func:`save_binary`), where an operand that is not saved is shown as None (torch's
``_saved_other`` of ``x * y`` when ``x`` needs no gradient); one read-only object per case,
shared by every such node (nothing else writes a product's context)."""


def _bw_mul_scalar(node: OpNode, s: Saved, g: Grads) -> Grads:
    """``MulBackward1``: the gradient times the kept scalar, by ``mul.Scalar`` again (torch's
    ``mul_tensor_backward`` of a Scalar)."""
    return (mul_scalar(g[0], s["other"]),)


def _bw_div_scalar(node: OpNode, s: Saved, g: Grads) -> Grads:
    """``DivBackward1``: the gradient over the kept scalar, by ``div.Scalar`` again (torch's
    ``div_tensor_self_backward`` of a Scalar)."""
    return (div_scalar(g[0], s["other"]),)


def mul_scalar(a: Tensor, k: float) -> Tensor:
    """torch's ``mul.Scalar`` as its C++ formulas call it (``MulBackward1``: the scalar is
    kept, no tensor is saved)."""
    recorded = needs_grad(a)
    ctx = {"other": k} if recorded else None
    return run_op((a,), recorded, _mul_scalar, "MulBackward1", _bw_mul_scalar, ctx, args=(a, k))


def _mul_scalar(a: Tensor, k: float) -> Tensor:
    """The kernel of :func:`mul_scalar`."""
    out = wrap(np.multiply(a._data, k), a.dtype)
    lay_out(out, a, k)
    return out


def div_scalar(a: Tensor, k: float) -> Tensor:
    """torch's ``div.Scalar`` as its C++ composites call it (``DivBackward1``: the scalar is
    kept, no tensor is saved); ``a`` is floating point."""
    recorded = needs_grad(a)
    ctx = {"other": k} if recorded else None
    return run_op((a,), recorded, _div_scalar, "DivBackward1", _bw_div_scalar, ctx, args=(a, k))


def _div_scalar(a: Tensor, k: float) -> Tensor:
    """The kernel of :func:`div_scalar`."""
    out = wrap(np.true_divide(a._data, k), a.dtype)
    lay_out(out, a, k)
    return out


def div(a: Tensor, b: Any) -> Tensor:
    """``a / b`` true division (``DivBackward0``); integer inputs give the default float dtype.
    Saves ``other``, and ``self`` if other needs grad, before the kernel's checks (as mul)."""
    b = operand(b)
    args = (a, b)
    return run_op((a, b), needs_grad(a, b), _div, "DivBackward0", bw_div, save=_save_div, args=args)


def _save_div(node: OpNode, a: Tensor, b: Any) -> None:
    """What a ``div`` node saves: ``other``, then ``self`` if other gets a gradient."""
    if isinstance(b, Tensor):
        node.save("other", b)
    else:  # a wrapped number: saved as is, saved-tensor hooks never see it
        node.save_number("other", b, wrapped_scalar)
    node.save("self", a if binary_node(node, a, b)[1] else None)


def _div(a: Tensor, b: Any) -> Tensor:
    """The kernel of :func:`div`."""
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        dt = dtypes.get_default_dtype()
    check_broadcast(a, b)
    out = wrap(np.true_divide(a._data, raw(b)), dt)
    lay_out(out, a, b, common=dt)
    return out


def reciprocal(a: Tensor) -> Tensor:
    """``1 / a`` (``ReciprocalBackward0``, saves its result)."""

    def kernel() -> Tensor:
        dt = a.dtype if a.dtype.is_floating_point else dtypes.get_default_dtype()
        out = wrap(np.reciprocal(a._data.astype(dt.np, copy=False)), dt)
        lay_out(out, a, common=dt)
        return out

    return run_op(
        (a,),
        needs_grad(a),
        kernel,
        "ReciprocalBackward0",
        bw_reciprocal,
        after=OpNode.save_result,
    )


def rdiv(a: Tensor, b: Any) -> Tensor:
    """``b / a`` for a scalar ``b``: ``reciprocal(a) * b`` as in torch."""
    b = operand(b)
    if isinstance(b, Tensor):
        return div(b, a)
    return mul(reciprocal(a), b)
