"""The in-place writes that replace a tensor's values: ``fill_``, ``zero_``, ``copy_`` and the
random fills (``normal_``, ``uniform_``); each torch's node, whose gradient for the old values is
zero.

Each writes through ``ownership.inplace_rules.run_inplace``, as the in-place arithmetic does
(``ownership.ops.inplace``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import layout
from ownership._tensor import Tensor
from ownership.autograd.node import Grads, OpNode, Saved
from ownership.inplace_rules import check_no_overlap, run_inplace
from ownership.ops import checks
from ownership.ops.common import is_scalar, needs_grad, operand, raw
from ownership.ops.creation import to_numpy
from ownership.ops.inplace import _tensors


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
