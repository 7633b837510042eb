"""The in-place ops: for each, what it computes, saves and names its node.

Every one of them writes through :func:`ownership.inplace_rules.run_inplace`, the in-place
contract, which makes torch's checks in torch's order, writes, bumps the version once and
rewrites the history.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import dtypes, layout
from ownership._tensor import Tensor
from ownership.autograd.node import BackwardFn, Grads, OpNode, Saved
from ownership.inplace_rules import check_no_overlap, check_result, run_inplace, written
from ownership.op_registry import OPS
from ownership.ops import arithmetic as ar
from ownership.ops import checks
from ownership.ops import unary as un
from ownership.ops.common import (
    check_broadcast,
    inputs_needed,
    is_scalar,
    needs_grad,
    needs_grad_with,
    operand,
    raw,
    result_dtype,
)
from ownership.ops.creation import to_numpy
from ownership.ops.python_numbers import int_parameter, operand_in, scaled


def snapshot(t: Tensor) -> Tensor:
    """The value before an in-place write, as torch saves it: ``self.clone()`` (``CloneBackward0``)."""
    return OPS["clone"](t)  # type: ignore[no-any-return]


def _tensors(*operands: Any) -> tuple[Tensor | None, ...]:
    """The operands as the contract takes them: a tensor, or None for a number."""
    return tuple(o if isinstance(o, Tensor) else None for o in operands)


def direct_write(a: Tensor, b: Any, alpha: Any = 1) -> bool:
    """Whether ``a op= alpha * b`` (op ``+``, ``-`` or ``*``) may be computed straight into
    ``a``'s array, bit for bit as into a new one (IEEE ``+ - *`` round each element alike).

    So it is when ``a``'s array is writable and holds its float dtype, ``b`` is a tensor of that
    numpy dtype and of ``a``'s shape or a Python float (a weak scalar: numpy's loop keeps
    ``a``'s dtype), and ``alpha`` is 1 or a Python float: the result has ``a``'s shape and
    dtype, and nothing raises (numpy's own overlap handling keeps ``a += a`` exact).
    """
    arr = a._data
    dt = arr.dtype
    if isinstance(b, Tensor):  # the commonest operand first (the optimizer's update)
        other = b._data
        if other.shape != arr.shape or other.dtype != dt:
            return False
    elif type(b) is not float:
        return False
    if not ((type(alpha) is int and alpha == 1) or type(alpha) is float):
        return False
    # a read-only array (memory of bytes): the general path's refusal
    return dt.kind == "f" and dt == a.dtype.np and arr.flags.writeable


def unrecorded_direct_write(a: Tensor, b: Any, alpha: Any) -> bool:
    """Whether ``a += alpha * b`` (``-=``, or ``a *= b`` with ``alpha`` 1) records nothing (grad
    mode off, or no operand requires grad) and may write straight into ``a``
    (:func:`direct_write`): the optimizer's update ``p -= lr * p.grad`` under no_grad, and
    SGD's, which then skip the general contract's steps that cannot act
    (:func:`_write_unrecorded`)."""
    return not needs_grad_with(a, b) and direct_write(a, b, alpha)


def _may_overlap(arr: NDArray[Any], other: NDArray[Any]) -> bool:
    """``np.may_share_memory(arr, other)``, answered False at once for two arrays that each own
    their memory (two allocations never overlap; the optimizer's parameter and fresh update)."""
    if arr is not other and arr.flags.owndata and other.flags.owndata:
        return False
    return bool(np.may_share_memory(arr, other))


def _write_unrecorded(a: Tensor, b: Any, value: Any, ufunc: np.ufunc, name: str) -> Tensor:
    """``a = ufunc(a, value)`` in place, when :func:`unrecorded_direct_write` allows (``value``
    is the operand ``b``'s number or array, scaled): what :func:`run_inplace` does then, since
    of its checks only the overlap one can fail (nothing is recorded, the value has ``a``'s
    shape and dtype), and the same write straight into ``a``'s array."""
    arr = a._data
    # the overlap rule asked only when it could refuse: an element written twice needs a 0
    # stride, an input overlapping ``a`` shares its memory (the common update shares none)
    if 0 in arr.strides or (isinstance(b, Tensor) and b is not a and _may_overlap(arr, b._data)):
        check_no_overlap(a, (b,) if isinstance(b, Tensor) else ())
    ufunc(arr, value, arr)  # into ``a``'s array (the positional ``out``)
    written(a, name)
    return a


def _add_scaled_(
    a: Tensor, b: Any, alpha: Any, ufunc: np.ufunc, name: str, backward: BackwardFn
) -> Tensor:
    """``a = ufunc(a, alpha * b)`` in place: what ``add_`` and ``sub_`` share."""
    if unrecorded_direct_write(a, b, alpha):
        rb = b if type(b) is float else b._data
        return _write_unrecorded(a, b, rb if alpha == 1 else rb * alpha, ufunc, name)
    b = operand(b)
    if ufunc is np.subtract:
        ar.check_bool_sub(a, b)  # torch's first refusal (a float tensor's write passes it)
    dt = result_dtype(a, b)
    rb = operand_in(b, dt)

    def compute() -> NDArray[Any]:
        check_broadcast(a, b)
        other = rb
        if not (alpha == 1 and type(alpha) is int):
            # torch checks alpha after the result's shape and dtype (run_inplace checks them after)
            check_result(a, np.broadcast_shapes(a._data.shape, np.shape(rb)), dt)
            other = scaled(rb, alpha, dt, negated=ufunc is np.subtract)
        out: NDArray[Any] = ufunc(a._data, other)
        return out

    def write(into: NDArray[Any]) -> None:  # only where alpha is 1 or a float (direct_write)
        ufunc(into, rb if alpha == 1 else rb * alpha, out=into)

    return run_inplace(
        a,
        (b if isinstance(b, Tensor) else None,),  # _tensors(b), without the call
        needs_grad(a, b),
        compute,
        dt,
        name,
        backward,
        {"alpha": alpha},
        lambda node: ar.binary_node(node, a, b),
        write=write if direct_write(a, b, alpha) else None,
    )


def add_(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a += alpha * b`` (``AddBackward0``)."""
    return _add_scaled_(a, b, alpha, np.add, "AddBackward0", ar.bw_add)


def sub_(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a -= alpha * b`` (``SubBackward0``)."""
    return _add_scaled_(a, b, alpha, np.subtract, "SubBackward0", ar.bw_sub)


def _save_binary_inplace(a: Tensor, b: Any) -> Callable[[OpNode], None]:
    def save(node: OpNode) -> None:
        ar.save_binary(node, a, b)
        if node._saved is not None and "self" in node._saved:
            node.save("self", snapshot(a))  # the value before the write

    return save


def mul_(a: Tensor, b: Any) -> Tensor:
    """``a *= b`` (``MulBackward0``; the original ``a`` is kept if ``b`` needs its gradient)."""
    if unrecorded_direct_write(a, b, 1):
        return _write_unrecorded(
            a, b, b if type(b) is float else b._data, np.multiply, "MulBackward0"
        )
    b = operand(b)
    dt = result_dtype(a, b)
    rb = operand_in(b, dt)

    def compute() -> NDArray[Any]:
        check_broadcast(a, b)
        out: NDArray[Any] = a._data * rb
        return out

    def write(into: NDArray[Any]) -> None:
        np.multiply(into, rb, out=into)

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
        write=write if direct_write(a, b) else None,
    )


def div_(a: Tensor, b: Any) -> Tensor:
    """``a /= b`` (``DivBackward0``)."""
    b = operand(b)
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        dt = dtypes.get_default_dtype()

    def compute() -> NDArray[Any]:
        check_broadcast(a, b)
        out: NDArray[Any] = np.true_divide(a._data, raw(b))
        return out

    def save(node: OpNode) -> None:
        node.save("other", b if isinstance(b, Tensor) else ar.wrapped_scalar(b))
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
    )


def pow_inplace(a: Tensor, e: Any) -> Tensor:
    """``a **= e`` for a number exponent (``PowBackward0``); ``pow_`` with a tensor exponent is
    :func:`ownership.ops.power_inplace.pow_`'s."""
    e = operand(e)
    ar.check_integer_power(a, e)
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
        ar.bw_pow_scalar,
        {"exponent": e},
        save,
        check_args=lambda: int_parameter(e, dt),
    )


def _unary_inplace(
    np_fn: Any, name: str, backward: BackwardFn, saves: str, float_only: bool = False
) -> Callable[[Tensor], Tensor]:
    """An in-place elementwise function; ``float_only``: an integer tensor cannot hold the result."""

    def op(a: Tensor) -> Tensor:
        def save(node: OpNode) -> None:
            node.save("self", snapshot(a))

        out_dtype = a.dtype
        if float_only and not a.dtype.is_floating_point:
            out_dtype = dtypes.get_default_dtype()
        return run_inplace(
            a,
            (),
            needs_grad(a),
            lambda: np_fn(a._data),
            out_dtype,
            name,
            backward,
            None,
            save if saves == "self" else None,
            save_result=saves == "result",
        )

    return op


def clamp_(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamp in place (``ClampBackward1``; ``ClampBackward0`` for tensor bounds)."""

    def check_args() -> None:
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        dt = un.clamp_dtype(a, min, max)
        if not dtypes.can_cast(dt, a.dtype):
            # torch names the tensor's dtype as its C++ type (as g++ spells it) when a bound is a
            # number (its Scalar overload)
            number = any(v is not None and not isinstance(v, Tensor) for v in (min, max))
            to = checks.CPP_TYPES[a.dtype.name] if number else a.dtype.short
            raise RuntimeError(
                f"result type {dt.short} can't be cast to the desired output type {to}"
            )

    def compute() -> NDArray[Any]:
        out = a._data
        if min is not None:
            out = np.maximum(out, raw(min))
        if max is not None:
            out = np.minimum(out, raw(max))
        return out

    if un.tensor_bounds(min, max):  # ``ClampBackward0``, an edge to each bound
        bounds = [v for v in (min, max) if v is not None]

        def save_tensors(node: OpNode) -> None:
            inputs_needed(node)
            node.save("self", snapshot(a))
            node.save("min", min)
            node.save("max", max)

        return run_inplace(
            a,
            (min, max),
            needs_grad(a, *bounds),
            compute,
            a.dtype,
            "ClampBackward0",
            un.bw_clamp_tensors,
            None,
            save_tensors,
            check_args=check_args,
        )

    def save(node: OpNode) -> None:
        node.save("self", snapshot(a))

    return run_inplace(
        a,
        (),
        needs_grad(a),
        compute,
        a.dtype,
        "ClampBackward1",
        un.bw_clamp,
        un.number_bounds(min, max),
        save,
        check_args=check_args,
    )


def fill_(a: Tensor, value: Any) -> Tensor:
    """Fill in place (``FillBackward0``; a tensor value must be 0-d)."""
    v = operand(value)
    dt = a.dtype

    def check_args() -> None:
        if isinstance(v, Tensor) and v._data.ndim != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{v._data.ndim} dimensions."
            )
        checks.fits(dt, v)

    def compute() -> NDArray[Any]:
        return np.broadcast_to(np.asarray(raw(v), dtype=a.dtype.np), a._data.shape)

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        return (g[0] * 0, g[0].sum() if isinstance(v, Tensor) else None)

    name = "FillBackward2" if not isinstance(v, Tensor) else "FillBackward3"
    others = (v,) if isinstance(v, Tensor) else ()
    return run_inplace(
        a,
        _tensors(*others),
        needs_grad(a, *others),
        compute,
        dt,
        name,
        bw,
        check_overlap=False,
        check_args=check_args,
    )


def zero_(a: Tensor) -> Tensor:
    """Fill with zeros in place (``ZeroBackward0``)."""
    return run_inplace(
        a,
        (),
        needs_grad(a),
        lambda: np.zeros_like(a._data),
        a.dtype,
        "ZeroBackward0",
        lambda node, s, g: (g[0] * 0,),
        check_overlap=False,
    )


def copy_(a: Tensor, src: Any) -> Tensor:
    """Copy ``src`` into ``a`` (broadcast; any dtype; ``CopyBackwards``)."""
    s_t = src if isinstance(src, Tensor) else None
    values = (
        src._data if s_t is not None else np.asarray(to_numpy(src) if not is_scalar(src) else src)
    )
    src_dtype = s_t.dtype if s_t is not None else a.dtype
    src_needed = s_t is not None and s_t.requires_grad  # decided now, not at backward time

    def compute() -> NDArray[Any]:
        src_shape = tuple(np.shape(values))
        try:
            shape = layout.broadcast_shapes(a._data.shape, src_shape)
        except RuntimeError:
            layout.expand_strides(src_shape, (0,) * len(src_shape), a._data.shape)
            raise
        if shape != a._data.shape:
            raise RuntimeError(
                f"output with shape {list(a._data.shape)} doesn't match the broadcast shape "
                f"{list(shape)}"
            )
        return np.broadcast_to(values, a._data.shape).astype(a.dtype.np)

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        from ownership.ops.common import sum_to

        gs = None
        if src_needed and s_t is not None:
            gs = sum_to(g[0], tuple(s_t._data.shape)).to(src_dtype)
        return (g[0] * 0, gs)

    same = s_t is a  # torch's copy_ returns at once when src is self (the version still moves)
    return run_inplace(
        a,
        (s_t,),
        needs_grad(a, s_t),
        compute,
        a.dtype,
        "torch::autograd::CopyBackwards",
        bw,
        check_overlap=not same,
    )


def _random_fill(a: Tensor, sample: Callable[[Any], NDArray[Any]]) -> Tensor:
    return run_inplace(
        a,
        (),
        needs_grad(a),
        lambda: sample(a._data.shape),
        a.dtype,
        "RandomBackward",
        lambda node, s, g: (g[0] * 0,),
    )


def normal_(a: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with normal samples in place."""
    from ownership.random import default_generator

    gen = generator or default_generator
    return _random_fill(a, lambda shape: gen.numpy().normal(mean, std, shape))


def uniform_(a: Tensor, lo: float = 0.0, hi: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with uniform samples in place."""
    from ownership.random import default_generator

    gen = generator or default_generator
    return _random_fill(a, lambda shape: gen.numpy().uniform(lo, hi, shape))


# The elementwise functions in place, each torch's node and what it saves.
relu_ = _unary_inplace(un.relu_values, "ReluBackward0", un.bw_relu, "result")
sigmoid_ = _unary_inplace(
    un._sigmoid_np, "SigmoidBackward0", un.bw_sigmoid, "result", float_only=True
)
exp_ = _unary_inplace(np.exp, "ExpBackward0", un.bw_exp, "result", float_only=True)
tanh_ = _unary_inplace(np.tanh, "TanhBackward0", un.bw_tanh, "result", float_only=True)
sqrt_ = _unary_inplace(np.sqrt, "SqrtBackward0", un.bw_sqrt, "result", float_only=True)
neg_ = _unary_inplace(np.negative, "NegBackward0", un.bw_neg, "none")
log_ = _unary_inplace(np.log, "LogBackward0", un.bw_log, "self", float_only=True)
abs_ = _unary_inplace(np.abs, "AbsBackward0", un.bw_abs, "self")
sin_ = _unary_inplace(np.sin, "SinBackward0", un.bw_sin, "self", float_only=True)
cos_ = _unary_inplace(np.cos, "CosBackward0", un.bw_cos, "self", float_only=True)
