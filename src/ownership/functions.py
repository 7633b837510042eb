"""Module-level functions of the ``torch`` namespace that are thin wrappers of Tensor methods."""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership.dtypes import dtype
from ownership.dtypes import promote_types as _promote_types
from ownership.layout import Size
from ownership.layout import broadcast_shapes as _broadcast_shapes
from ownership.tensor import Tensor


def is_tensor(obj: Any) -> bool:
    """True when ``obj`` is an ownership Tensor."""
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:
    """Number of elements of ``t``."""
    return t.numel()


def add(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a + alpha * b``."""
    return a.add(b, alpha=alpha)


def sub(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a - alpha * b``."""
    return a.sub(b, alpha=alpha)


def mul(a: Tensor, b: Any) -> Tensor:
    """``a * b``."""
    return a.mul(b)


def div(a: Tensor, b: Any) -> Tensor:
    """``a / b``."""
    return a.div(b)


def pow(a: Tensor, exponent: Any) -> Tensor:
    """``a ** exponent``."""
    return a.pow(exponent)


def flatten(t: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """``t.flatten(start_dim, end_dim)``."""
    return t.flatten(start_dim, end_dim)


def reshape(t: Tensor, shape: Any) -> Tensor:
    """``t.reshape(shape)``."""
    return t.reshape(shape)


def transpose(t: Tensor, dim0: int, dim1: int) -> Tensor:
    """``t.transpose(dim0, dim1)``."""
    return t.transpose(dim0, dim1)


def permute(t: Tensor, dims: Any) -> Tensor:
    """``t.permute(dims)``."""
    return t.permute(dims)


def unsqueeze(t: Tensor, dim: int) -> Tensor:
    """``t.unsqueeze(dim)``."""
    return t.unsqueeze(dim)


def squeeze(t: Tensor, dim: Any = None) -> Tensor:
    """``t.squeeze(dim)``."""
    return t.squeeze(dim)


def unbind(t: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """``t.unbind(dim)``."""
    return t.unbind(dim)


def split(t: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``t.split(split_size, dim)``."""
    return t.split(split_size, dim)


def chunk(t: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``t.chunk(chunks, dim)``."""
    return t.chunk(chunks, dim)


def narrow(t: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``t.narrow(dim, start, length)``."""
    return t.narrow(dim, start, length)


def select(t: Tensor, dim: int, index: int) -> Tensor:
    """``t.select(dim, index)``."""
    return t.select(dim, index)


def t(x: Tensor) -> Tensor:
    """``x.t()``."""
    return x.t()


def clone(x: Tensor) -> Tensor:
    """``x.clone()``."""
    return x.clone()


def detach(x: Tensor) -> Tensor:
    """``x.detach()``."""
    return x.detach()


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
    """Whether all elements are close."""
    return bool(np.allclose(a._data, b._data, rtol=rtol, atol=atol))


def equal(a: Tensor, b: Tensor) -> bool:
    """Same shape and same values."""
    return a.shape == b.shape and bool((a == b).all())


def is_floating_point(x: Tensor) -> bool:
    """Whether ``x`` has a floating dtype."""
    return x.is_floating_point()


def broadcast_shapes(*shapes: Any) -> Size:
    """The broadcast of several shapes."""
    return Size(_broadcast_shapes(*shapes))


def eq(a: Tensor, b: Any) -> Tensor:
    """Elementwise ``==``."""
    return a.eq(b)


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types."""
    return _promote_types(a, b)
