"""In-place ops: compute, check (torch's rules and messages), write, bump the version once.

The protocol, in torch's order: if the op will be recorded (grad mode on and some operand
requires grad) the autograd checks run first (:meth:`Tensor._check_inplace`: leaf, view of a
leaf, multi-output view, view made under no_grad); then the write checks (no broadcast growth,
no narrowing cast, no overlapping memory); then the write, the version bump (in any grad mode)
and, if recorded, the new history (through ``CopySlices`` for a view).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import dtypes, layout, observers
from ownership._tensor import Tensor
from ownership.autograd.node import BackwardFn, OpNode, gradient_edge
from ownership.dtypes import dtype as DType
from ownership.op_registry import OPS
from ownership.ops import arithmetic as ar
from ownership.ops import checks
from ownership.ops import unary as un
from ownership.ops.common import is_scalar, needs_grad, result_dtype, scalar_value
from ownership.ops.creation import to_numpy


def run_inplace(
    self: Tensor,
    others: tuple[Any, ...],
    compute: Callable[[], NDArray[Any]],
    out_dtype: DType,
    name: str,
    backward: BackwardFn,
    ctx: dict[str, Any] | None = None,
    save: Callable[[OpNode], object] | None = None,
    save_result: bool = False,
    check_overlap: bool = True,
) -> Tensor:
    """Apply an in-place op to ``self`` following torch's checks, bump, and history rules."""
    recorded = needs_grad(self, *others)
    if recorded:
        self._check_inplace()
    value = compute()
    self._check_writable(tuple(np.shape(value)), out_dtype, check_overlap)
    for o in others:
        if isinstance(o, Tensor) and o is not self:
            _check_partial_overlap(self, o)
    node = None
    if recorded:
        node = OpNode(
            name,
            tuple(
                gradient_edge(t) if isinstance(t, Tensor) else (None, 0) for t in (self, *others)
            ),
            backward,
            ctx,
        )
        if save is not None:
            save(node)
    np.copyto(self._data, value, casting="unsafe")
    self._storage.counter.value += 1
    if observers.WRITES:
        for observe in observers.WRITES:
            observe(self, name)
    if node is not None:
        self._set_history_inplace(node)
        if save_result:
            node.save("result", self, is_output=True, on_view=self._base is not None)
    return self


def _check_partial_overlap(out: Tensor, src: Tensor) -> None:
    """torch refuses an input that overlaps the written tensor without being exactly it."""
    a, b = out._data, src._data
    if not np.may_share_memory(a, b):
        return
    if a.shape == b.shape and a.strides == b.strides and out._offset == src._offset:
        return
    try:
        work: Any = 100_000
        overlap = np.shares_memory(a, b, max_work=work)
    except np.exceptions.TooHardError:
        overlap = True
    if overlap:
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


def _snapshot(t: Tensor) -> Tensor:
    """The value before an in-place write, as torch saves it: ``self.clone()`` (``CloneBackward0``)."""
    return OPS["clone"](t)  # type: ignore[no-any-return]


def _operand(b: Any) -> Any:
    if isinstance(b, Tensor):
        return b
    if is_scalar(b):
        return scalar_value(b)
    return Tensor._wrap(np.asarray(to_numpy(b)))


def _raw(b: Any) -> Any:
    return b._data if isinstance(b, Tensor) else b


def _bcast(a: Tensor, b: Any) -> None:
    if isinstance(b, Tensor) and a._data.shape != b._data.shape:
        layout.broadcast_shapes(a._data.shape, b._data.shape)


def add_(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a += alpha * b`` (``AddBackward0``)."""
    b = _operand(b)

    def compute() -> NDArray[Any]:
        _bcast(a, b)
        rb = _raw(b)
        out: NDArray[Any] = a._data + (rb if alpha == 1 else rb * alpha)
        return out

    return run_inplace(
        a,
        (b,),
        compute,
        result_dtype(a, b),
        "AddBackward0",
        ar.bw_add,
        ar.bin_ctx(a, b, alpha),
        ar.edges_needed,
    )


def sub_(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a -= alpha * b`` (``SubBackward0``)."""
    b = _operand(b)

    def compute() -> NDArray[Any]:
        _bcast(a, b)
        rb = _raw(b)
        out: NDArray[Any] = a._data - (rb if alpha == 1 else rb * alpha)
        return out

    return run_inplace(
        a,
        (b,),
        compute,
        result_dtype(a, b),
        "SubBackward0",
        ar.bw_sub,
        ar.bin_ctx(a, b, alpha),
        ar.edges_needed,
    )


def _save_binary_inplace(a: Tensor, b: Any) -> Callable[[OpNode], None]:
    def save(node: OpNode) -> None:
        ar.save_binary(node, a, b)
        if node._saved is not None and "self" in node._saved:
            node.save("self", _snapshot(a))  # the value before the write

    return save


def mul_(a: Tensor, b: Any) -> Tensor:
    """``a *= b`` (``MulBackward0``; the original ``a`` is kept if ``b`` needs its gradient)."""
    b = _operand(b)

    def compute() -> NDArray[Any]:
        _bcast(a, b)
        out: NDArray[Any] = a._data * _raw(b)
        return out

    return run_inplace(
        a,
        (b,),
        compute,
        result_dtype(a, b),
        "MulBackward0",
        ar.bw_mul,
        ar.bin_ctx(a, b, None),
        _save_binary_inplace(a, b),
    )


def div_(a: Tensor, b: Any) -> Tensor:
    """``a /= b`` (``DivBackward0``)."""
    b = _operand(b)
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        dt = dtypes.get_default_dtype()

    def compute() -> NDArray[Any]:
        _bcast(a, b)
        out: NDArray[Any] = np.true_divide(a._data, _raw(b))
        return out

    def save(node: OpNode) -> None:
        node.save("other", b if isinstance(b, Tensor) else ar.wrapped_scalar(b))
        if not isinstance(b, Tensor):
            node._ctx["_scalar"] = b
        if ar.edges_needed(node)[1]:
            node.save("self", _snapshot(a))
        else:
            node._ctx["self"] = None

    return run_inplace(
        a, (b,), compute, dt, "DivBackward0", ar.bw_div, ar.bin_ctx(a, b, None), save
    )


def pow_inplace(a: Tensor, e: Any) -> Tensor:
    """``a **= e`` for a scalar exponent (``PowBackward0``)."""
    e = _operand(e)
    if isinstance(e, Tensor):
        raise NotImplementedError("pow_ with a tensor exponent is not supported by ownership")

    def save(node: OpNode) -> None:
        node.save("self", _snapshot(a))

    return run_inplace(
        a,
        (),
        lambda: np.power(a._data, e),
        result_dtype(a, e),
        "PowBackward0",
        ar.bw_pow_scalar,
        {"exponent": e},
        save,
    )


def _unary_inplace(
    np_fn: Any, name: str, backward: BackwardFn, saves: str, float_only: bool = False
) -> Callable[[Tensor], Tensor]:
    """An in-place elementwise function; ``float_only``: an integer tensor cannot hold the result."""

    def op(a: Tensor) -> Tensor:
        def save(node: OpNode) -> None:
            node.save("self", _snapshot(a))

        out_dtype = a.dtype
        if float_only and not a.dtype.is_floating_point:
            out_dtype = dtypes.get_default_dtype()
        return run_inplace(
            a,
            (),
            lambda: np_fn(a._data),
            out_dtype,
            name,
            backward,
            None,
            save if saves == "self" else None,
            saves == "result",
        )

    return op


def clamp_(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamp in place (``ClampBackward1``)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")

    def compute() -> NDArray[Any]:
        out = a._data
        if min is not None:
            out = np.maximum(out, _raw(min))
        if max is not None:
            out = np.minimum(out, _raw(max))
        return out

    def save(node: OpNode) -> None:
        node.save("self", _snapshot(a))

    return run_inplace(
        a, (), compute, a.dtype, "ClampBackward1", un.bw_clamp, {"min": min, "max": max}, save
    )


def fill_(a: Tensor, value: Any) -> Tensor:
    """Fill in place (``FillBackward0``; a tensor value must be 0-d)."""
    v = _operand(value)
    if isinstance(v, Tensor) and v._data.ndim != 0:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{v._data.ndim} dimensions."
        )
    dt = a.dtype
    checks.fits(dt, v)

    def compute() -> NDArray[Any]:
        return np.broadcast_to(np.asarray(_raw(v), dtype=a.dtype.np), a._data.shape)

    def bw(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
        return (g[0] * 0, g[0].sum() if isinstance(v, Tensor) else None)

    name = "FillBackward2" if not isinstance(v, Tensor) else "FillBackward3"
    return run_inplace(
        a, (v,) if isinstance(v, Tensor) else (), compute, dt, name, bw, check_overlap=False
    )


def zero_(a: Tensor) -> Tensor:
    """Fill with zeros in place (``ZeroBackward0``)."""
    return run_inplace(
        a,
        (),
        lambda: np.zeros_like(a._data),
        a.dtype,
        "ZeroBackward0",
        lambda s, g: (g[0] * 0,),
        check_overlap=False,
    )


def copy_(a: Tensor, src: Any) -> Tensor:
    """Copy ``src`` into ``a`` (broadcast; any dtype; ``CopyBackwards``)."""
    s_t = src if isinstance(src, Tensor) else None
    raw = src._data if s_t is not None else np.asarray(to_numpy(src) if not is_scalar(src) else src)
    src_dtype = s_t.dtype if s_t is not None else a.dtype
    src_needed = s_t is not None and s_t.requires_grad  # decided now, not at backward time

    def compute() -> NDArray[Any]:
        src_shape = tuple(np.shape(raw))
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
        return np.broadcast_to(raw, a._data.shape).astype(a.dtype.np)

    def bw(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
        from ownership.ops.common import sum_to

        gs = None
        if src_needed and s_t is not None:
            gs = sum_to(g[0], tuple(s_t._data.shape)).to(src_dtype)
        return (g[0] * 0, gs)

    same = s_t is a  # torch's copy_ returns at once when src is self (the version still moves)
    return run_inplace(
        a, (s_t,), compute, a.dtype, "torch::autograd::CopyBackwards", bw, check_overlap=not same
    )


def _random_fill(a: Tensor, sample: Callable[[Any], NDArray[Any]]) -> Tensor:
    return run_inplace(
        a, (), lambda: sample(a._data.shape), a.dtype, "RandomBackward", lambda s, g: (g[0] * 0,)
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
relu_ = _unary_inplace(lambda x: np.maximum(x, 0), "ReluBackward0", un.bw_relu, "result")
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
