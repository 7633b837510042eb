"""``torch.rsub(input, other, alpha=1)``: ``other - alpha * input``, and ``2 - x``.

torch computes it as ``sub(other, input, alpha)`` (the same values, dtype, checks and layout)
but records its own node, whose inputs keep rsub's order: ``RsubBackward0`` for a tensor
``other`` (``d input = -alpha * grad``, ``d other = grad``), ``RsubBackward1`` for a number.
An inference tensor less from a number, out of inference mode, records ``SubBackward0``: torch's
kernel then runs ``sub`` with the number wrapped as a (normal) tensor.
"""

from __future__ import annotations

from typing import Any

from ownership.core import grad_mode
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.tensor import Tensor
from ownership.ops.arithmetic import (
    alpha_ctx,
    binary_node,
    bw_sub,
    check_bool_sub,
    sub,
    wrapped_scalar,
)
from ownership.ops.common import (
    inference_kernel,
    lay_out,
    needs_grad,
    operand,
    result_dtype,
    run_op,
    sum_to,
    wrap,
)
from ownership.ops.python_numbers import int_in


def _bw_rsub(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(other - alpha * self) = d other - alpha * d self."""
    gr, alpha = g[0], s["alpha"]
    self_needed, other_needed = node.needed
    self_shape, other_shape = node.input_shapes
    d_self = sum_to(-gr if alpha == 1 else gr * -alpha, self_shape) if self_needed else None
    return (d_self, sum_to(gr, other_shape) if other_needed else None)


def _bw_rsub_number(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(number - alpha * self) = -alpha * d self."""
    alpha = s["alpha"]
    return (-g[0] if alpha == 1 else g[0] * -alpha,)


def _unrecorded(a: Tensor, b: Any, alpha: Any) -> Tensor:
    """``sub(b, a, alpha)``'s result, recorded by nobody: the values rsub shares with it."""
    with grad_mode.no_grad():
        return sub(b, a, alpha=alpha)


def rsub(a: Tensor, b: Any, *, alpha: Any = 1) -> Tensor:
    """``b - alpha * a`` (``RsubBackward0`` for a tensor ``b``, ``RsubBackward1`` for a number).

    >>> import ownership
    >>> ownership.rsub(ownership.tensor([1.0, 2.0]), 3, alpha=2)
    tensor([ 1., -1.])
    """
    b = operand(b)
    check_bool_sub(a, b)  # torch's first refusal
    if isinstance(b, Tensor):
        return run_op(
            (a, b),
            needs_grad(a, b),
            lambda: _unrecorded(a, b, alpha),
            "RsubBackward0",
            _bw_rsub,
            alpha_ctx(alpha),
            lambda node: binary_node(node, a, b),
        )

    def kernel() -> Tensor:
        dt = result_dtype(a, b)
        if alpha == 1 and type(alpha) is int:  # ``2 - x``: the number less the array, in dt
            out = wrap((int_in(b, dt) if type(b) is int else b) - a._data, dt)
            lay_out(out, a, b, common=dt)
            return out
        # the number as a 0-d tensor of the result's dtype, less alpha times ``a``
        return _unrecorded(a, Tensor._wrap(int_in(b, dt) if type(b) is int else b, dt), alpha)

    if inference_kernel(a) and needs_grad(number := wrapped_scalar(b), a):
        # torch's kernel of an inference ``a`` runs ``sub(number, a, alpha)``, the number wrapped
        # as a normal tensor, so autograd sees that sub
        return run_op(
            (number, a),
            True,
            kernel,
            "SubBackward0",
            bw_sub,
            alpha_ctx(alpha),
            lambda node: binary_node(node, number, a),
        )
    return run_op((a,), needs_grad(a), kernel, "RsubBackward1", _bw_rsub_number, {"alpha": alpha})
