"""Random numbers: a seeded :class:`Generator` and the global one behind ``manual_seed``.

Values are reproducible for a given seed (they are not torch's values).

>>> g = Generator().manual_seed(0)
>>> a = randn(2, generator=g)
>>> b = randn(2, generator=Generator().manual_seed(0))
>>> bool((a == b).all())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership import dtypes
from ownership import signatures as sig
from ownership._tensor import Tensor
from ownership.argument_checks import tensor_arg


class Generator:
    """A random number generator with torch's ``manual_seed``/``initial_seed`` interface."""

    def __init__(self, device: Any = "cpu") -> None:
        self._seed = 67280421310721
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        """Reset the stream to ``seed``; returns self."""
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        """The last seed set."""
        return self._seed

    def seed(self) -> int:
        """Reseed from entropy and return the new seed."""
        entropy = np.random.SeedSequence().entropy
        new = int(entropy if isinstance(entropy, int) else 0) % (2**63)
        self.manual_seed(new)
        return new

    def numpy(self) -> np.random.Generator:
        """The numpy generator behind this one."""
        return self._rng


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the global generator; returns it."""
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    """The seed of the global generator."""
    return default_generator.initial_seed()


def _make(arr: Any, dtype: Any, requires_grad: bool) -> Tensor:
    dt = dtypes.resolve(dtype) or dtypes.get_default_dtype()
    t = Tensor._wrap(np.asarray(arr, dtype=dt.np), dt)
    if requires_grad:
        t.requires_grad_(True)
    return t


def randn(
    *size: Any, generator: Generator | None = None, dtype: Any = None, requires_grad: bool = False
) -> Tensor:
    """Standard normal samples."""
    g = generator or default_generator
    return _make(g._rng.standard_normal(sig.sizes("randn", size)), dtype, requires_grad)


def rand(
    *size: Any, generator: Generator | None = None, dtype: Any = None, requires_grad: bool = False
) -> Tensor:
    """Uniform samples in [0, 1)."""
    g = generator or default_generator
    return _make(g._rng.random(sig.sizes("rand", size)), dtype, requires_grad)


def randint(*args: Any, generator: Generator | None = None, dtype: Any = None) -> Tensor:
    """Integers in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``."""
    a = sig.RANDINT.parse(args, {})[1]
    low, high, shape = a.get("low", 0), a["high"], a["size"]
    sig.non_negative(shape)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    g = generator or default_generator
    dt = dtypes.resolve(dtype) or dtypes.int64
    return Tensor._wrap(g._rng.integers(low, high, size=shape).astype(dt.np), dt)


def randperm(n: int, *, generator: Generator | None = None) -> Tensor:
    """A random permutation of 0..n-1 (int64)."""
    sig.RANDPERM.parse((n,), {})
    sig.non_negative((n,))
    g = generator or default_generator
    return Tensor._wrap(g._rng.permutation(n).astype(np.int64), dtypes.int64)


def randn_like(t: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples with ``t``'s shape."""
    tensor_arg("randn_like", t)
    return randn(tuple(t.shape), dtype=dtype or t.dtype, requires_grad=requires_grad)


def rand_like(t: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Uniform samples with ``t``'s shape."""
    tensor_arg("rand_like", t)
    return rand(tuple(t.shape), dtype=dtype or t.dtype, requires_grad=requires_grad)
