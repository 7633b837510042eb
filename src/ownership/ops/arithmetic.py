"""Arithmetic with broadcasting: ``+ - * / **`` and their backward (gradients summed to each shape).

What each op saves is what torch's saves: ``mul`` and ``div`` save an operand only when the other
side's gradient is needed (has an edge), a Python scalar operand as a 0-d tensor; ``pow`` saves
its base, ``add``/``sub`` save nothing.

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> (x * 3).grad_fn.name(), (x + x).grad_fn.name(), (2 ** x).grad_fn.name()
('MulBackward0', 'AddBackward0', 'PowBackward2')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership import dtypes
from ownership._tensor import Tensor
from ownership.autograd.node import OpNode
from ownership.op_registry import OPS
from ownership.ops.common import (
    check_broadcast,
    inputs_needed,
    needs_grad,
    operand,
    raw,
    record,
    result_dtype,
    shape_of,
    sum_to,
    wrap,
)


# ---------------------------------------------------------------- backward formulas
def bw_add(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    gr = g[0]
    alpha = s["alpha"]
    gb = None
    if s["_other_needed"]:
        gb = sum_to(gr if alpha == 1 else gr * alpha, s["_other_shape"])
    return (sum_to(gr, s["_self_shape"]) if s["_self_needed"] else None, gb)


def bw_sub(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    gr = g[0]
    alpha = s["alpha"]
    gb = None
    if s["_other_needed"]:
        gb = sum_to(-gr if alpha == 1 else gr * -alpha, s["_other_shape"])
    return (sum_to(gr, s["_self_shape"]) if s["_self_needed"] else None, gb)


def bw_mul(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    gr = g[0]
    ga = gb = None
    if s.get("_self_needed"):
        ga = sum_to(gr * s.get("_scalar", s["other"]), s["_self_shape"])
    if s.get("_other_needed"):
        gb = sum_to(gr * s["self"], s["_other_shape"])
    return (ga, gb)


def bw_div(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    gr = g[0]
    other = s.get("_scalar", s["other"])
    ga = gb = None
    if s.get("_self_needed"):
        ga = sum_to(gr / other, s["_self_shape"])
    if s.get("_other_needed"):
        gb = sum_to(-gr * s["self"] / (other * other), s["_other_shape"])
    return (ga, gb)


def bw_pow_scalar(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    e = s["exponent"]
    x = s["self"]
    if e == 0:  # torch: zeros_like(self), no history
        return (Tensor._wrap(np.zeros_like(x._data), x.dtype),)
    return (g[0] * mul_scalar(x ** (e - 1), e),)  # grad * (exp * self.pow(exp - 1))


def bw_reciprocal(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    r = s["result"]
    return (-g[0] * r * r,)


# ---------------------------------------------------------------- the ops
def add(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a + alpha * b`` (``AddBackward0``; saves nothing)."""
    b = operand(b)
    dt = result_dtype(a, b)
    check_broadcast(a, b)
    rb = raw(b)
    out = wrap(a._data + (rb if alpha == 1 else rb * alpha), dt)
    if needs_grad(a, b):
        edges_needed(record(out, "AddBackward0", (a, b), bw_add, bin_ctx(a, b, alpha)))
    return out


def sub(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a - alpha * b`` (``SubBackward0``)."""
    b = operand(b)
    dt = result_dtype(a, b)
    _check_bool_sub(a, b)
    check_broadcast(a, b)
    rb = raw(b)
    out = wrap(a._data - (rb if alpha == 1 else rb * alpha), dt)
    if needs_grad(a, b):
        edges_needed(record(out, "SubBackward0", (a, b), bw_sub, bin_ctx(a, b, alpha)))
    return out


def _check_bool_sub(a: Tensor, b: Any) -> None:
    """torch refuses ``-`` when an operand is a bool tensor."""
    a_bool = a.dtype is dtypes.bool_
    b_bool = isinstance(b, Tensor) and b.dtype is dtypes.bool_
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


def rsub(a: Tensor, b: Any) -> Tensor:
    """``b - a`` for a Python scalar ``b`` (``RsubBackward1``)."""
    b = operand(b)
    _check_bool_sub(a, b)
    if isinstance(b, Tensor):
        return sub(b, a)
    dt = result_dtype(a, b)
    out = wrap(b - a._data, dt)
    if needs_grad(a):
        record(out, "RsubBackward1", (a,), lambda s, g: (-g[0],), {"alpha": 1})
    return out


def bin_ctx(a: Tensor, b: Any, alpha: float | None) -> dict[str, Any]:
    """What a binary op's backward needs besides saved tensors (``alpha`` only for add/sub).

    Which inputs need a gradient (``_self_needed``, ``_other_needed``) is added once the node
    exists, by :func:`edges_needed`: it depends on the node's edges, not on ``requires_grad``.
    """
    ctx: dict[str, Any] = {"_self_shape": shape_of(a), "_other_shape": shape_of(b)}
    if alpha is not None:
        ctx["alpha"] = alpha
    return ctx


def mul(a: Tensor, b: Any) -> Tensor:
    """``a * b`` (``MulBackward0``): saves ``other`` if a needs grad, ``self`` if b does."""
    b = operand(b)
    dt = result_dtype(a, b)
    check_broadcast(a, b)
    out = wrap(a._data * raw(b), dt)
    if needs_grad(a, b):
        node = record(out, "MulBackward0", (a, b), bw_mul, bin_ctx(a, b, None))
        save_binary(node, a, b)
    return out


def edges_needed(node: OpNode) -> tuple[bool, ...]:
    """Which of a binary node's inputs (``self``, ``other``) get a gradient (have an edge)."""
    return inputs_needed(node, "self", "other")


def wrapped_scalar(b: Any) -> Tensor:
    """A Python scalar operand as torch saves it: a 0-d tensor (int64, float64 or bool)."""
    return Tensor._wrap(np.asarray(b))


def save_binary(node: Any, a: Tensor, b: Any) -> None:
    """What mul and div save: ``other`` when self needs grad, ``self`` when other needs grad.

    "Needs grad" is torch's ``should_compute_output``: the input has an edge in the graph (a
    view made under no_grad reports requires_grad but has none).
    """
    a_needed, b_needed = edges_needed(node)
    b_grad = b_needed
    if a_needed:
        if isinstance(b, Tensor):
            node.save("other", b)
        else:  # a wrapped number: saved as is, saved-tensor hooks never see it
            node.save("other", wrapped_scalar(b), wrapped_number=True)
        if not isinstance(b, Tensor):
            node._ctx["_scalar"] = b
    else:
        node._ctx["other"] = None
    if b_grad:
        node.save("self", a)
    else:
        node._ctx["self"] = None


def mul_scalar(a: Tensor, k: float) -> Tensor:
    """torch's ``mul.Scalar`` as its C++ formulas call it (``MulBackward1``: the scalar is
    kept, no tensor is saved)."""
    out = wrap(np.multiply(a._data, k), a.dtype)
    if needs_grad(a):
        record(out, "MulBackward1", (a,), lambda s, g: (g[0] * s["other"],), {"other": k})
    return out


def div_scalar(a: Tensor, k: float) -> Tensor:
    """torch's ``div.Scalar`` as its C++ composites call it (``DivBackward1``: the scalar is
    kept, no tensor is saved); ``a`` is floating point."""
    out = wrap(np.true_divide(a._data, k), a.dtype)
    if needs_grad(a):
        record(out, "DivBackward1", (a,), lambda s, g: (g[0] / s["other"],), {"other": k})
    return out


def div(a: Tensor, b: Any) -> Tensor:
    """``a / b`` true division (``DivBackward0``); integer inputs give the default float dtype."""
    b = operand(b)
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        dt = dtypes.get_default_dtype()
    check_broadcast(a, b)
    out = wrap(np.true_divide(a._data, raw(b)), dt)
    if needs_grad(a, b):
        node = record(out, "DivBackward0", (a, b), bw_div, bin_ctx(a, b, None))
        if isinstance(b, Tensor):
            node.save("other", b)
        else:  # a wrapped number: saved as is, saved-tensor hooks never see it
            node.save("other", wrapped_scalar(b), wrapped_number=True)
        if not isinstance(b, Tensor):
            node._ctx["_scalar"] = b
        if edges_needed(node)[1]:
            node.save("self", a)
        else:
            node._ctx["self"] = None
    return out


def reciprocal(a: Tensor) -> Tensor:
    """``1 / a`` (``ReciprocalBackward0``, saves its result)."""
    dt = a.dtype if a.dtype.is_floating_point else dtypes.get_default_dtype()
    out = wrap(np.reciprocal(a._data.astype(dt.np, copy=False)), dt)
    if needs_grad(a):
        node = record(out, "ReciprocalBackward0", (a,), bw_reciprocal)
        node.save("result", out, is_output=True)
    return out


def rdiv(a: Tensor, b: Any) -> Tensor:
    """``b / a`` for a scalar ``b``: ``reciprocal(a) * b`` as in torch."""
    b = operand(b)
    if isinstance(b, Tensor):
        return div(b, a)
    return mul(reciprocal(a), b)


def power(a: Tensor, e: Any) -> Tensor:
    """``a ** e``: scalar exponent ``PowBackward0`` (saves self), tensor ``PowBackward1``."""
    e = operand(e)
    if isinstance(e, Tensor):
        dt = result_dtype(a, e)
        check_broadcast(a, e)
        out = wrap(_power(a._data.astype(dt.np, copy=False), e._data, dt), dt)
        if needs_grad(a, e):
            ctx = bin_ctx(a, e, None)

            def bw(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
                x, ex, r = s["self"], s["exponent"], s["result"]
                ga = gb = None
                if s["_self_needed"]:
                    ga = sum_to(g[0] * ex * x ** (ex - 1), s["_self_shape"])
                if s["_other_needed"]:
                    safe = OPS["where"](x > 0, x, 1.0)
                    gb = sum_to(g[0] * r * safe.log(), s["_other_shape"])
                return (ga, gb)

            node = record(out, "PowBackward1", (a, e), bw, ctx)
            edges_needed(node)
            node.save("self", a)
            node.save("exponent", e)
            node.save("result", out, is_output=True)
        return out
    dt = result_dtype(a, e)
    if not a.dtype.is_floating_point and isinstance(e, int) and e < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    out = wrap(np.power(a._data.astype(dt.np, copy=False), e), dt)
    if needs_grad(a):
        node = record(out, "PowBackward0", (a,), bw_pow_scalar, {"exponent": e})
        node.save("self", a)
    return out


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
    out = wrap(np.power(b, a._data.astype(dt.np, copy=False)), dt)
    if needs_grad(a):
        base = float(np.log(b)) if b > 0 else float("nan")
        node = record(
            out, "PowBackward2", (a,), lambda s, g: (g[0] * s["result"] * base,), {"self": b}
        )
        node.save("exponent", a)
        node.save("result", out, is_output=True)
    return out
