"""The in-place arithmetic (``add_``, ``sub_``, ``mul_``, ``div_``, ``a **= e``): for each, what it
computes, saves and names its node.

Every one of them writes through :func:`ownership.core.inplace_rules.run_inplace`, the in-place
contract, which makes torch's checks in torch's order, writes, bumps the version once and
rewrites the history. The elementwise functions in place are in ``ownership.ops.inplace_unary``,
the fills and copies in ``ownership.ops.inplace_fills``; both save the value before the write with
``snapshot``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ownership.core import dtypes
from ownership.core.autograd.node import BackwardFn, OpNode
from ownership.core.inplace_rules import Write, check_inplace, check_result, run_inplace
from ownership.core.layout import broadcast_shapes
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.ops import arithmetic as ar
from ownership.ops import power as pw
from ownership.ops.common import (
    needs_grad,
    operand,
    raw,
    result_dtype,
)
from ownership.ops.loop_order import Kernel
from ownership.ops.python_numbers import int_parameter, operand_in, scaled


def snapshot(t: Tensor) -> Tensor:
    """The value before an in-place write, as torch saves it: ``self.clone()`` (``CloneBackward0``)."""
    return OPS["clone"](t)  # type: ignore[no-any-return]


def _tensors(*operands: Any) -> tuple[Tensor | None, ...]:
    """The operands as the contract takes them: a tensor, or None for a number."""
    return tuple([o if isinstance(o, Tensor) else None for o in operands])  # no generator


def _add_scaled_(
    a: Tensor, b: Any, alpha: Any, ufunc: np.ufunc, name: str, backward: BackwardFn
) -> Tensor:
    """``a = ufunc(a, alpha * b)`` in place by the in-place contract: what ``add_`` and ``sub_``
    share."""
    b = operand(b)
    ar.check_alpha(alpha)
    if ufunc is np.subtract:
        try:
            ar.check_bool_sub(a, b)  # sub's own first refusal, before the type promotion
        except RuntimeError:
            if needs_grad(a, b):  # torch's order: the autograd check (run_inplace's) first
                check_inplace(a)
            raise
    dt = result_dtype(a, b)
    rb = operand_in(b, dt)

    def compute() -> Write:
        shape = broadcast_shapes(a._data.shape, getattr(rb, "shape", ()))  # torch's error if none
        other = rb
        if not (alpha == 1 and type(alpha) is int):
            # torch checks alpha after the result's shape and dtype (run_inplace checks them after)
            check_result(a, shape, dt)
            other = scaled(rb, alpha, dt, negated=ufunc is np.subtract)
        return Write(shape, lambda into: ufunc(a._data, other, out=into, casting="unsafe"))

    def kernel(x: Any, y: Any) -> Any:  # torch's add kernel: self + alpha * other
        if alpha == 1 and type(alpha) is int:
            return ufunc(x, y)
        return ufunc(x, scaled(y, alpha, dt, negated=ufunc is np.subtract))

    return run_inplace(
        a,
        _tensors(b),
        needs_grad(a, b),
        compute,
        dt,
        name,
        backward,
        {"alpha": alpha},
        lambda node: ar.binary_node(node, a, b),
        kernel=lambda: Kernel(kernel, vectorized=dt is not dtypes.bool_),
        reads=(a._data, rb),
    )


def add_(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a += alpha * b`` (``AddBackward0``)."""
    return _add_scaled_(a, b, alpha, np.add, "AddBackward0", ar.bw_add)


def sub_(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a -= alpha * b`` (``SubBackward0``)."""
    return _add_scaled_(a, b, alpha, np.subtract, "SubBackward0", ar.bw_sub)


def _save_binary_inplace(a: Tensor, b: Any) -> Callable[[OpNode], None]:
    def save(node: OpNode) -> None:
        ar.save_binary(node, a, b, lambda: snapshot(a))  # the value before the write

    return save


def mul_(a: Tensor, b: Any) -> Tensor:
    """``a *= b`` (``MulBackward0``; the original ``a`` is kept if ``b`` needs its gradient)."""
    b = operand(b)
    dt = result_dtype(a, b)
    rb = operand_in(b, dt)

    def compute() -> Write:
        shape = broadcast_shapes(a._data.shape, getattr(rb, "shape", ()))  # torch's error if none
        return Write(shape, lambda into: np.multiply(a._data, rb, out=into, casting="unsafe"))

    return run_inplace(
        a,
        _tensors(b),
        needs_grad(a, b),
        compute,
        dt,
        "MulBackward0",
        ar.bw_mul,
        None,
        _save_binary_inplace(a, b),
        kernel=lambda: Kernel(np.multiply, vectorized=dt is not dtypes.bool_),
        reads=(a._data, rb),
    )


def div_(a: Tensor, b: Any) -> Tensor:
    """``a /= b`` (``DivBackward0``)."""
    b = operand(b)
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        dt = dtypes.get_default_dtype()

    rb = raw(b)

    def compute() -> Write:
        shape = broadcast_shapes(a._data.shape, getattr(rb, "shape", ()))  # torch's error if none
        return Write(shape, lambda into: np.true_divide(a._data, rb, out=into, casting="unsafe"))

    def save(node: OpNode) -> None:
        if isinstance(b, Tensor):
            node.save("other", b)
        else:  # a wrapped number: saved-tensor hooks never see it
            node.save_number("other", b, ar.wrapped_scalar)
        if ar.binary_node(node, a, b)[1]:
            node.save("self", snapshot(a))
        else:
            node._ctx["self"] = None

    return run_inplace(
        a,
        _tensors(b),
        needs_grad(a, b),
        compute,
        dt,
        "DivBackward0",
        ar.bw_div,
        None,
        save,
        kernel=lambda: Kernel(np.true_divide, vectorized=True),
        reads=(a._data, rb),
    )


def pow_inplace(a: Tensor, e: Any) -> Tensor:
    """``a **= e`` for a number exponent (``PowBackward0``); ``pow_`` with a tensor exponent is
    :func:`ownership.ops.power_inplace.pow_`'s."""
    e = operand(e)
    pw.check_integer_power(a, e)
    dt = result_dtype(a, e)

    def save(node: OpNode) -> None:
        node.save("self", snapshot(a))

    return run_inplace(
        a,
        (),
        needs_grad(a),
        lambda: np.power(a._data, e),
        dt,
        "PowBackward0",
        pw.bw_pow_scalar,
        {"exponent": e},
        save,
        check_args=lambda: int_parameter(e, dt),
    )
