"""Elementwise ops with broadcasting, and their backward (gradients summed back to each shape).

What each op saves is what torch's saves: ``mul`` saves the other operand only when that
gradient is needed, ``sigmoid``/``exp``/``tanh``/``relu``/``sqrt`` save their result, ``pow``,
``log``, ``abs`` and ``clamp`` save their input, ``add``/``sub``/``neg`` save nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership import dtypes, layout
from ownership.ops.common import (
    as_tensor_arg,
    is_scalar,
    needs_grad,
    record,
    result_dtype,
    scalar_value,
    sum_to,
    wrap,
)
from ownership.tensor import Tensor
from ownership.tensor_methods import OPS


def _err() -> Any:
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _operand(b: Any) -> Any:
    tb = type(b)
    if tb is float or tb is int or isinstance(b, Tensor):
        return b
    if is_scalar(b):
        return scalar_value(b)
    return as_tensor_arg(b)


def _raw(b: Any) -> Any:
    return b._data if isinstance(b, Tensor) else b


def _check_broadcast(a: Tensor, b: Any) -> None:
    if isinstance(b, Tensor) and a._data.shape != b._data.shape:
        layout.broadcast_shapes(a._data.shape, b._data.shape)


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(x._data.shape) if isinstance(x, Tensor) else ()


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
    if e == 0:
        return (g[0] * 0,)
    return (g[0] * (s["self"] ** (e - 1) * e),)


def bw_neg(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    return (-g[0],)


def bw_exp(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    return (g[0] * s["result"],)


def bw_log(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    return (g[0] / s["self"],)


def bw_sqrt(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    return (g[0] / (s["result"] * 2),)


def bw_abs(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    return (g[0] * sign(s["self"]),)


def bw_sigmoid(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    r = s["result"]
    return (g[0] * (1 - r) * r,)


def bw_tanh(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    r = s["result"]
    return (g[0] * (1 - r * r),)


def bw_relu(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    r = s["result"]
    return (g[0] * Tensor._wrap((r._data > 0).astype(r._data.dtype), r.dtype),)


def bw_clamp(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    x = s["self"]._data
    mask = np.ones(x.shape, dtype=bool)
    lo, hi = s["min"], s["max"]
    if lo is not None:
        mask &= x >= _raw(lo)
    if hi is not None:
        mask &= x <= _raw(hi)
    return (g[0] * Tensor._wrap(mask.astype(x.dtype), s["self"].dtype),)


def bw_reciprocal(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    r = s["result"]
    return (-g[0] * r * r,)


# ---------------------------------------------------------------- binary ops
def add(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a + alpha * b`` (``AddBackward0``; saves nothing)."""
    b = _operand(b)
    dt = result_dtype(a, b)
    _check_broadcast(a, b)
    rb = _raw(b)
    out = wrap(a._data + (rb if alpha == 1 else rb * alpha), dt)
    if needs_grad(a, b):
        record(out, "AddBackward0", (a, b), bw_add, _bin_ctx(a, b, alpha))
    return out


def sub(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a - alpha * b`` (``SubBackward0``)."""
    b = _operand(b)
    dt = result_dtype(a, b)
    _check_bool_sub(a, b)
    _check_broadcast(a, b)
    rb = _raw(b)
    out = wrap(a._data - (rb if alpha == 1 else rb * alpha), dt)
    if needs_grad(a, b):
        record(out, "SubBackward0", (a, b), bw_sub, _bin_ctx(a, b, alpha))
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
    b = _operand(b)
    _check_bool_sub(a, b)
    if isinstance(b, Tensor):
        return sub(b, a)
    dt = result_dtype(a, b)
    out = wrap(b - a._data, dt)
    if needs_grad(a):
        record(out, "RsubBackward1", (a,), lambda s, g: (-g[0],), {"alpha": 1})
    return out


def _bin_ctx(a: Tensor, b: Any, alpha: float | None) -> dict[str, Any]:
    """What a binary op's backward needs besides saved tensors (``alpha`` only for add/sub)."""
    ctx = {
        "_self_shape": _shape(a),
        "_other_shape": _shape(b),
        "_self_needed": a.requires_grad,
        "_other_needed": isinstance(b, Tensor) and b.requires_grad,
    }
    if alpha is not None:
        ctx["alpha"] = alpha
    return ctx


def mul(a: Tensor, b: Any) -> Tensor:
    """``a * b`` (``MulBackward0``): saves ``other`` if a needs grad, ``self`` if b does."""
    b = _operand(b)
    dt = result_dtype(a, b)
    _check_broadcast(a, b)
    out = wrap(a._data * _raw(b), dt)
    if needs_grad(a, b):
        node = record(out, "MulBackward0", (a, b), bw_mul, _bin_ctx(a, b, None))
        save_binary(node, a, b)
    return out


def edges_needed(node: Any) -> tuple[bool, ...]:
    """Which inputs of ``node`` get a gradient (have an edge); recorded in its context."""
    flags = tuple(n is not None for n, _ in node.next_functions)
    node._ctx["_self_needed"] = flags[0]
    if len(flags) > 1:
        node._ctx["_other_needed"] = flags[1]
    return flags


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
        node.save("other", b if isinstance(b, Tensor) else wrapped_scalar(b))
        if not isinstance(b, Tensor):
            node._ctx["_scalar"] = b
    else:
        node._ctx["other"] = None
    if b_grad:
        node.save("self", a)
    else:
        node._ctx["self"] = None


def div(a: Tensor, b: Any) -> Tensor:
    """``a / b`` true division (``DivBackward0``); integer inputs give the default float dtype."""
    b = _operand(b)
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        dt = dtypes.get_default_dtype()
    _check_broadcast(a, b)
    with _err():
        out = wrap(np.true_divide(a._data, _raw(b)), dt)
    if needs_grad(a, b):
        node = record(out, "DivBackward0", (a, b), bw_div, _bin_ctx(a, b, None))
        node.save("other", b if isinstance(b, Tensor) else wrapped_scalar(b))
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
    with _err():
        out = wrap(np.reciprocal(a._data.astype(dt.np, copy=False)), dt)
    if needs_grad(a):
        node = record(out, "ReciprocalBackward0", (a,), bw_reciprocal)
        node.save("result", out, is_output=True)
    return out


def rdiv(a: Tensor, b: Any) -> Tensor:
    """``b / a`` for a scalar ``b``: ``reciprocal(a) * b`` as in torch."""
    b = _operand(b)
    if isinstance(b, Tensor):
        return div(b, a)
    return mul(reciprocal(a), b)


def pow_(a: Tensor, e: Any) -> Tensor:
    """``a ** e``: scalar exponent ``PowBackward0`` (saves self), tensor ``PowBackward1``."""
    e = _operand(e)
    if isinstance(e, Tensor):
        dt = result_dtype(a, e)
        _check_broadcast(a, e)
        with _err():
            out = wrap(_power(a._data.astype(dt.np, copy=False), e._data, dt), dt)
        if needs_grad(a, e):
            ctx = _bin_ctx(a, e, None)

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
            node.save("self", a)
            node.save("exponent", e)
            node.save("result", out, is_output=True)
        return out
    dt = result_dtype(a, e)
    if not a.dtype.is_floating_point and isinstance(e, int) and e < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    with _err():
        out = wrap(np.power(a._data.astype(dt.np, copy=False), e), dt)
    if needs_grad(a):
        node = record(out, "PowBackward0", (a,), bw_pow_scalar, {"exponent": e})
        node.save("self", a)
    return out


def _power(base: Any, exponent: Any, dt: Any) -> Any:
    """Elementwise power; integer results of negative exponents truncate toward zero (torch)."""
    if dt.is_floating_point or not np.any(np.asarray(exponent) < 0):
        return np.power(base, exponent)
    with np.errstate(all="ignore"):
        out = np.trunc(np.power(base.astype(np.float64), np.asarray(exponent, dtype=np.float64)))
    return np.nan_to_num(out, nan=0, posinf=0, neginf=0).astype(dt.np)


def rpow(a: Tensor, b: Any) -> Tensor:
    """``b ** a`` for a scalar base (``PowBackward2``)."""
    b = _operand(b)
    if isinstance(b, Tensor):
        return pow_(b, a)
    dt = result_dtype(a, b)
    with _err():
        out = wrap(np.power(b, a._data.astype(dt.np, copy=False)), dt)
    if needs_grad(a):
        base = float(np.log(b)) if b > 0 else float("nan")
        node = record(
            out, "PowBackward2", (a,), lambda s, g: (g[0] * s["result"] * base,), {"self": b}
        )
        node.save("exponent", a)
        node.save("result", out, is_output=True)
    return out


# ---------------------------------------------------------------- unary ops
def _float_dtype(a: Tensor) -> Any:
    return a.dtype if a.dtype.is_floating_point else dtypes.get_default_dtype()


def _unary(a: Tensor, fn: Any, name: str, backward: Any, save: str) -> Tensor:
    dt = _float_dtype(a)
    with _err():
        out = wrap(fn(a._data.astype(dt.np, copy=False)), dt)
    if needs_grad(a):
        node = record(out, name, (a,), backward)
        if save == "result":
            node.save("result", out, is_output=True)
        else:
            node.save("self", a)
    return out


def _sigmoid_np(x: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-x))


def exp(a: Tensor) -> Tensor:
    """Elementwise e**a (``ExpBackward0``, saves result)."""
    return _unary(a, np.exp, "ExpBackward0", bw_exp, "result")


def log(a: Tensor) -> Tensor:
    """Natural log (``LogBackward0``, saves self)."""
    return _unary(a, np.log, "LogBackward0", bw_log, "self")


def sqrt(a: Tensor) -> Tensor:
    """Square root (``SqrtBackward0``, saves result)."""
    return _unary(a, np.sqrt, "SqrtBackward0", bw_sqrt, "result")


def sigmoid(a: Tensor) -> Tensor:
    """Logistic function (``SigmoidBackward0``, saves result)."""
    return _unary(a, _sigmoid_np, "SigmoidBackward0", bw_sigmoid, "result")


def tanh(a: Tensor) -> Tensor:
    """tanh (``TanhBackward0``, saves result)."""
    return _unary(a, np.tanh, "TanhBackward0", bw_tanh, "result")


def relu(a: Tensor) -> Tensor:
    """max(a, 0) (``ReluBackward0``, saves result); keeps integer dtypes."""
    out = wrap(np.maximum(a._data, 0), a.dtype)
    if needs_grad(a):
        node = record(out, "ReluBackward0", (a,), bw_relu)
        node.save("result", out, is_output=True)
    return out


def abs_(a: Tensor) -> Tensor:
    """|a| (``AbsBackward0``, saves self)."""
    out = wrap(np.abs(a._data), a.dtype)
    if needs_grad(a):
        node = record(out, "AbsBackward0", (a,), bw_abs)
        node.save("self", a)
    return out


def neg(a: Tensor) -> Tensor:
    """-a (``NegBackward0``, saves nothing)."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )
    out = wrap(-a._data, a.dtype)
    if needs_grad(a):
        record(out, "NegBackward0", (a,), bw_neg)
    return out


def sign(a: Tensor) -> Tensor:
    """Sign of each element (its gradient is zero)."""
    out = wrap(np.sign(a._data), a.dtype)
    if needs_grad(a):
        record(out, "SignBackward0", (a,), lambda s, g: (g[0] * 0,))
    return out


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamp into [min, max] (``ClampBackward1``, saves self)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    lo, hi = _raw(min), _raw(max)
    out_arr = a._data
    if lo is not None:
        out_arr = np.maximum(out_arr, lo)
    if hi is not None:
        out_arr = np.minimum(out_arr, hi)
    dt = a.dtype
    if not dt.is_floating_point and any(isinstance(v, float) for v in (lo, hi)):
        dt = dtypes.get_default_dtype()
    out = wrap(out_arr, dt)
    if needs_grad(a):
        node = record(out, "ClampBackward1", (a,), bw_clamp, {"min": min, "max": max})
        node.save("self", a)
    return out


# ---------------------------------------------------------------- comparisons (not differentiable)
def _compare(fn: Any) -> Any:
    def op(a: Tensor, b: Any) -> Tensor:
        b = _operand(b)
        _check_broadcast(a, b)
        return wrap(fn(a._data, _raw(b)), dtypes.bool_)

    return op


def logical_not(a: Tensor) -> Tensor:
    """Elementwise not (``~`` on bool tensors; bitwise not on integers)."""
    if a.dtype is dtypes.bool_:
        return wrap(~a._data, dtypes.bool_)
    if a.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return wrap(~a._data, a.dtype)


def register() -> None:
    """Install the elementwise ops in the Tensor registry."""
    OPS.update(
        add=add,
        sub=sub,
        rsub=rsub,
        mul=mul,
        div=div,
        rdiv=rdiv,
        pow=pow_,
        rpow=rpow,
        reciprocal=reciprocal,
        exp=exp,
        log=log,
        sqrt=sqrt,
        sigmoid=sigmoid,
        tanh=tanh,
        relu=relu,
        abs=abs_,
        neg=neg,
        sign=sign,
        clamp=clamp,
        eq=_compare(np.equal),
        ne=_compare(np.not_equal),
        lt=_compare(np.less),
        le=_compare(np.less_equal),
        gt=_compare(np.greater),
        ge=_compare(np.greater_equal),
        logical_not=logical_not,
        logical_and=_compare(np.logical_and),
        logical_or=_compare(np.logical_or),
    )
