"""The in-place writes that replace a tensor's values: ``fill_``, ``zero_``, ``copy_`` and the
random fills (``normal_``, ``uniform_``, ``bernoulli_``); each torch's node, whose gradient for
the old values is zero. Each random fill's checks and draws are one sampler, which the factories
(``randn``, ``bernoulli`` ...) share through :func:`fill_fresh`.

Each writes through ``ownership.core.inplace_rules.run_inplace``, as the in-place arithmetic does
(``ownership.ops.inplace``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import distributions
from ownership.core import layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import check_no_overlap, run_inplace
from ownership.core.tensor import Tensor
from ownership.distributions import in_memory_order
from ownership.ops import checks
from ownership.ops.argument_values import tensor_arg
from ownership.ops.common import (
    is_scalar,
    needs_grad,
    operand,
    raw,
    run_op,
    zeros_like_grad,
)
from ownership.ops.creation import to_numpy, zeros
from ownership.ops.inplace import _tensors
from ownership.ops.loop_order import Kernel

_stream_of: Any = None
"""What a sampler draws from, ``generator``'s stream or the global generator's
(:func:`ownership.random.stream_of`: that module imports this one), given by
:func:`ownership.installation.install`."""


def fill_(a: Tensor, value: Any) -> Tensor:
    """Fill in place (``FillBackward2``; ``FillBackward3`` for a tensor value, which must be 0-d).

    A number fills without the overlap checks (torch's ``fill_out``: an expanded tensor takes
    it); a tensor value is torch's ``self.copy_(value)`` (of a clone, when it is ``self``'s
    alias), so an expanded tensor is refused as ``copy_`` refuses it: ``t[1:] = 1.5`` too."""
    v = operand(value)
    dt = a.dtype

    def check_args() -> None:
        if isinstance(v, Tensor):
            if v._data.ndim != 0:
                raise RuntimeError(
                    "fill_ only supports 0-dimension value tensor but got tensor with "
                    f"{v._data.ndim} dimensions."
                )
            check_no_overlap(a, ())
        checks.fits(dt, v)

    def compute() -> NDArray[Any]:
        number = raw(v)  # a float cast as torch casts it (2.0**63 into int64: INT64_MIN)
        filled = np.asarray(number).astype(dt.np) if type(number) is float else number
        return np.broadcast_to(np.asarray(filled, dtype=dt.np), a._data.shape)

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:  # one gradient per input, as torch's
        zeros = zeros_like_grad(g[0])
        return (zeros, g[0].sum()) if isinstance(v, Tensor) else (zeros,)

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
        lambda node, s, g: (zeros_like_grad(g[0]),),
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
        shape = layout.broadcast_shapes(a._data.shape, src_shape)  # TensorIterator's words
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
        return (zeros_like_grad(g[0], contiguous=True), gs)

    same = s_t is not None and _same_data(a, s_t)
    return run_inplace(
        a,
        (s_t,),
        # torch records a copy only into a tensor that can require grad: an integer or bool
        # tensor stays out of the graph whatever it copies (its copy_ alone, not fill_'s)
        needs_grad(a, s_t) and a.dtype.is_floating_point,
        compute,
        a.dtype,
        "torch::autograd::CopyBackwards",
        bw,
        check_overlap=not same,
        kernel=lambda: Kernel(_identity, vectorized=True),
        reads=(values,),
    )


def _identity(values: NDArray[Any]) -> NDArray[Any]:
    """torch's ``direct_copy_kernel``, of a source of the written dtype (one of another dtype
    is not followed in loop order: ``ownership.ops.loop_order.aliased``)."""
    return values


def _same_data(a: Tensor, src: Tensor) -> bool:
    """torch's ``copy_`` returns at once, before any check (the version still moves), when
    ``src`` is ``a`` or is its data: the same memory, sizes, strides and dtype (``copy_impl``'s
    ``is_same_data``; ``t.expand(2, 3)[...] = t`` copies such an expanded ``t`` into itself)."""
    x, y = a._data, src._data
    return src is a or (
        x.shape == y.shape
        and x.strides == y.strides
        and x.dtype == y.dtype
        and a.dtype is src.dtype
        and np.may_share_memory(x, y)
        and layout.address(x) == layout.address(y)
    )


def _random_fill(
    a: Tensor, sample: Callable[[int], NDArray[Any]], node: str, p: Tensor | None = None
) -> Tensor:
    """Write ``sample(n)``, ``n`` values drawn in torch's order for ``a`` (its memory's), into
    ``a``; torch's ``node`` gives no gradient for the old values (nor for the probabilities
    ``p``, when a tensor gives them)."""

    def compute() -> NDArray[Any]:
        shape = a._data.shape
        return in_memory_order(sample(a._data.size), shape, a._stride())

    def backward(_: Any, s: Any, g: Any) -> tuple[Any, ...]:
        if p is None:
            return (zeros_like_grad(g[0]),)
        return (zeros_like_grad(g[0]), zeros(tuple(p.shape), dtype=p.dtype))

    others = () if p is None else (p,)
    return run_inplace(a, others, needs_grad(a, *others), compute, a.dtype, node, backward)


Sampler = Callable[[int], NDArray[Any]]


def _floating_kernel(a: Tensor, kernel: str) -> None:
    if not a.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{a.dtype.short}'")


def normal_sampler(a: Tensor, mean: float, std: float, generator: Any) -> Sampler:
    """torch's checks of ``a.normal_(mean, std)``, then its draws for ``a``."""
    if std < 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    _floating_kernel(a, "normal_kernel_cpu")
    contiguous, dtype = a._is_contiguous(), a.dtype.np
    return lambda n: distributions.normal(_stream_of(generator), n, dtype, mean, std, contiguous)


def uniform_sampler(a: Tensor, lo: float, hi: float, generator: Any) -> Sampler:
    """torch's checks of ``a.uniform_(lo, hi)``, then its draws for ``a``."""
    _floating_kernel(a, "check_uniform_bounds")
    if lo > hi:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={lo} > to={hi}"
        )
    return lambda n: distributions.uniform(_stream_of(generator), n, a.dtype.np, lo, hi)


def bernoulli_sampler(a: Tensor, p: Any, generator: Any) -> Sampler:
    """torch's checks of ``a.bernoulli_(p)`` (a float, or a tensor of probabilities that
    broadcasts to ``a``), then its draws for ``a``."""
    if not isinstance(p, Tensor):
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        return lambda n: distributions.bernoulli(_stream_of(generator), p, n, np.dtype(np.float64))
    if not p.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{p.dtype.short}'"
        )
    probs = np.broadcast_to(p._data, a._data.shape)
    if ((probs < 0) | (probs > 1)).any():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    ordered = in_memory_order(np.arange(a._data.size), a._data.shape, a._stride())
    in_draw_order = np.empty(a._data.size, dtype=probs.dtype)
    in_draw_order[ordered.ravel()] = probs.ravel()
    p_dtype = np.dtype(np.float64 if p.dtype.np == np.float64 else np.float32)
    return lambda n: distributions.bernoulli(_stream_of(generator), in_draw_order, n, p_dtype)


def fill_fresh(out: Tensor, sample: Sampler) -> Tensor:
    """Draw a new tensor's values as torch's factories do (``randn``, ``bernoulli``, ...): in
    its memory's order, below autograd (no version bump, no node)."""
    out._data[...] = in_memory_order(sample(out._data.size), out._data.shape, out._stride())
    return out


def normal_(a: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with samples of N(mean, std**2) in place (torch's values)."""
    return _random_fill(a, normal_sampler(a, mean, std, generator), "NormalBackward0")


def uniform_(a: Tensor, lo: float = 0.0, hi: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with samples of U(lo, hi) in place (torch's values)."""
    return _random_fill(a, uniform_sampler(a, lo, hi, generator), "UniformBackward0")


def bernoulli_(a: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill with draws of 1 with probability ``p`` (a float, or a tensor of probabilities that
    broadcasts to ``a``) in place, in ``a``'s dtype."""
    sample = bernoulli_sampler(a, p, generator)
    if isinstance(p, Tensor):
        return _random_fill(a, sample, "BernoulliBackward1", p)
    return _random_fill(a, sample, "BernoulliBackward2")


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """Draws of 1 with probability ``input`` (each element's own), or ``p`` for every element,
    in ``input``'s dtype (``BernoulliBackward0``, a zero gradient, when ``input`` requires
    grad and gives the probabilities)."""
    tensor_arg("bernoulli", input)

    def kernel() -> Tensor:
        out = Tensor._wrap(np.zeros(input._data.shape, dtype=input.dtype.np), input.dtype)
        fill_fresh(out, bernoulli_sampler(out, input if p is None else p, generator))
        return out

    return run_op(
        (input,),
        p is None and needs_grad(input),
        kernel,
        "BernoulliBackward0",
        lambda node, s, g: (zeros_like_grad(g[0]),),
    )
