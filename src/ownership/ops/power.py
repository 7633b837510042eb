"""Powers with broadcasting: ``a ** e`` (a number or a tensor exponent) and ``b ** a`` (a
number base), with torch's refusals and nodes (``PowBackward0``, ``PowBackward1``,
``PowBackward2``) and their backward formulas beside them.

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> (x ** 2).grad_fn.name(), (x ** x).grad_fn.name(), (2 ** x).grad_fn.name()
('PowBackward0', 'PowBackward1', 'PowBackward2')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership.core import dtypes
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.ops.arithmetic import binary_node, mul_scalar
from ownership.ops.common import (
    check_broadcast,
    lay_out,
    needs_grad,
    operand,
    result_dtype,
    run_op,
    sum_to,
    wrap,
)
from ownership.ops.python_numbers import int_in, int_parameter


# ---------------------------------------------------------------- backward formulas
def bw_pow_scalar(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self ** exponent) = exponent * self ** (exponent - 1) * d self, for a number exponent."""
    x, e = s["self"], s["exponent"]
    if e == 0:  # torch: zeros_like(self) in the legacy contiguous format, no history
        return (Tensor._wrap(np.zeros(x._data.shape, x._data.dtype), x.dtype),)
    return (g[0] * mul_scalar(x ** (e - 1), e),)  # grad * (exp * self.pow(exp - 1))


def bw_pow_tensor(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self ** exponent) = exponent * self ** (exponent - 1) * d self
    + result * log(self) * d exponent, op for op as torch's ``pow_backward_self`` and
    ``pow_backward_exponent``: 0 for ``self`` where the exponent is 0, and 0 for the exponent
    where ``self`` is 0 and the exponent is not negative (a negative base's log is NaN)."""
    x, e, result = s["self"], s["exponent"], s["result"]
    self_needed, exponent_needed = node.needed
    self_shape, exponent_shape = node.input_shapes
    gr = g[0]
    zero = Tensor._wrap(np.zeros((), gr._data.dtype), gr.dtype)  # zeros({}, grad.options())
    where = OPS["where"]
    d_self = d_exponent = None
    if self_needed:
        d_self = sum_to(where(e == 0.0, zero, gr * (e * x ** (e - 1))), self_shape)
    if exponent_needed:
        cond = OPS["logical_and"](x == 0, e >= 0)
        d_exponent = sum_to(
            gr * where(cond, zero, result * x.to(result.dtype).log()), exponent_shape
        )
    return (d_self, d_exponent)


# ---------------------------------------------------------------- the ops
def power(a: Tensor, e: Any) -> Tensor:
    """``a ** e``: scalar exponent ``PowBackward0`` (saves self), tensor ``PowBackward1``."""
    e = operand(e)
    if isinstance(e, Tensor):
        return _power_tensor(a, e)
    check_integer_power(a, e)
    dt = result_dtype(a, e)
    int_parameter(e, dt)

    def kernel() -> Tensor:
        out = wrap(np.power(a._data.astype(dt.np, copy=False), e), dt)
        lay_out(out, a, common=dt)  # a unary kernel in torch: laid out as ``a`` (cast)
        return out

    recorded = needs_grad(a)
    return run_op(
        (a,),
        recorded,
        kernel,
        "PowBackward0",
        bw_pow_scalar,
        {"exponent": e} if recorded else None,
        lambda node: node.save("self", a),
    )


def _power_tensor(a: Tensor, e: Tensor) -> Tensor:
    """``a ** e`` of a tensor exponent (``PowBackward1``): saves both before the kernel's checks,
    and its result after."""

    def save(node: OpNode) -> None:
        binary_node(node, a, e)
        node.save("exponent", e)  # torch's order: exponent, then self
        node.save("self", a)

    def kernel() -> Tensor:
        dt = result_dtype(a, e)
        check_broadcast(a, e)
        check_bool_power(dt)
        out = wrap(_power(a._data.astype(dt.np, copy=False), e._data, dt), dt)
        lay_out(out, a, e, common=dt)
        return out

    return run_op(
        (a, e),
        needs_grad(a, e),
        kernel,
        "PowBackward1",
        bw_pow_tensor,
        save=save,
        after=lambda node, out: node.save_result(out),
    )


def check_integer_power(a: Tensor, e: Any) -> None:
    """torch's refusals of a number exponent of an integer tensor, read as an int64 first (before
    the result dtype, which must then hold it too): one beyond int64, a negative one."""
    if a.dtype.is_floating_point or not isinstance(e, int):
        return
    int_parameter(e, dtypes.int64)
    if e < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def check_bool_power(dt: dtypes.dtype) -> None:
    """torch has no kernel for a power with a tensor exponent computed in bool (``b ** b``,
    ``True ** b``); a number exponent of a bool tensor computes (``b ** True``)."""
    if dt is dtypes.bool_:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")


def _power(base: Any, exponent: Any, dt: Any) -> Any:
    """Elementwise power; integer results of negative exponents truncate toward zero (torch)."""
    if dt.is_floating_point or not np.any(np.asarray(exponent) < 0):
        return np.power(base, exponent)
    out = np.trunc(np.power(base.astype(np.float64), np.asarray(exponent, dtype=np.float64)))
    return np.nan_to_num(out, nan=0, posinf=0, neginf=0).astype(dt.np)


def rpow(a: Tensor, b: Any) -> Tensor:
    """``b ** a`` for a scalar base (``PowBackward2``)."""
    b = operand(b)
    if isinstance(b, Tensor):
        return power(b, a)
    dt = result_dtype(a, b)
    check_bool_power(dt)
    base = int_in(b, dt) if type(b) is int else b
    recorded = needs_grad(a)
    log_b = (float(np.log(b)) if b > 0 else float("nan")) if recorded else 0.0
    return run_op(
        (a,),
        recorded,
        lambda: wrap(np.power(base, a._data.astype(dt.np, copy=False)), dt),
        "PowBackward2",
        lambda node, s, g: (g[0] * s["result"] * log_b,),
        {"self": b},
        lambda node: node.save("exponent", a),
        OpNode.save_result,
    )
