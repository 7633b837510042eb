"""The random factories: ``rand``, ``randn``, ``randint``, ``randperm``, ``rand_like`` and
``randn_like``, ops of the table (:mod:`ownership.ops.table`) as every factory is.

They draw from ``generator``'s stream or the global generator's, through the samplers' seam
(``ownership.ops.inplace_fills._stream_of``, given by :func:`ownership.installation.install`),
so after ``manual_seed(s)`` they give torch's values (``ownership.random`` keeps the generators).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np

from ownership import distributions
from ownership.core import dtypes
from ownership.core.tensor import Tensor
from ownership.ops import checks, devices, inplace_fills
from ownership.ops import signatures as sig
from ownership.ops.argument_values import tensor_arg
from ownership.ops.creation import empty_like
from ownership.ops.inplace_fills import fill_fresh, normal_sampler, uniform_sampler

__all__ = ["rand", "rand_like", "randint", "randn", "randn_like", "randperm"]

Generator: TypeAlias = Any
"""A ``generator=`` argument: an ``ownership.random.Generator`` or None. This module may not name
that one, even for annotations: ``ownership.random`` loads the ops package, whose table imports
this module (a circle of three, ``tests/build/test_import_graph.py``)."""


def _new(
    shape: tuple[int, ...], dtype: Any, requires_grad: bool, sampler: Any, *args: Any
) -> Tensor:
    """A new contiguous tensor of ``shape`` filled by ``sampler(tensor, *args)``'s draws
    (``dtype``: a parsed one, or None for the default)."""
    dt = dtype or dtypes.get_default_dtype()
    out = Tensor._wrap(np.empty(shape, dtype=dt.np), dt)
    fill_fresh(out, sampler(out, *args))
    return out._requires_grad_(True) if requires_grad else out


def randn(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Standard normal samples (torch's ``empty(size).normal_()``)."""
    a = sig.sizes("randn", size, generator=generator, dtype=dtype, device=device)
    devices.check_device(device, "randn")
    return _new(a["size"], a["dtype"], requires_grad, normal_sampler, 0.0, 1.0, generator)


def rand(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Uniform samples in [0, 1) (torch's ``empty(size).uniform_()``)."""
    a = sig.sizes("rand", size, generator=generator, dtype=dtype, device=device)
    devices.check_device(device, "rand")
    return _new(a["size"], a["dtype"], requires_grad, uniform_sampler, 0.0, 1.0, generator)


def randint(
    *args: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None
) -> Tensor:
    """Integers in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``."""
    a = sig.RANDINT.parse(args, sig.given(generator=generator, dtype=dtype, device=device))[1]
    devices.check_device(device, "randint")
    low, high, shape = a.get("low", 0), a["high"], a["size"]
    sig.non_negative(shape)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    dt = a["dtype"] or dtypes.int64
    if dt is dtypes.bool_:  # torch's check_from_to_in_range, for the one dtype of two values
        for name, bound in (("from", low), ("to - 1", high - 1)):
            if not 0 <= bound <= 1:
                raise RuntimeError(f"{name} is out of bounds for bool")
    n = int(np.prod(shape, dtype=np.int64))
    values = distributions.integers(inplace_fills._stream_of(generator), n, low, high)
    return Tensor._wrap(values.reshape(shape).astype(dt.np), dt)


def randperm(
    n: int, *, generator: Generator | None = None, dtype: Any = None, device: Any = None
) -> Tensor:
    """A random permutation of 0..n-1 (int64 unless ``dtype``): torch's Fisher-Yates, position ``i`` swapped with
    ``i + word % (n - i)``; from n = 2**32 // 20 on, torch's inside-out variant with 64-bit
    draws."""
    a = sig.RANDPERM.parse((n,), sig.given(generator=generator, dtype=dtype, device=device))[1]
    devices.check_device(device, "randperm")
    dt = a["dtype"] or dtypes.int64
    checks.not_for_bool("randperm", dt)
    sig.non_negative((n,))
    engine = inplace_fills._stream_of(generator).engine
    perm = list(range(n))
    if n < 0xFFFFFFFF // 20:
        offsets = engine.words(max(n - 1, 0)).astype(np.int64) % np.arange(n, 1, -1)
        for i, z in enumerate(offsets.tolist()):
            perm[i], perm[i + z] = perm[i + z], perm[i]
    else:
        for i in range(n):
            z = int(engine.words64(1)[0] % np.uint64(i + 1))
            perm[i], perm[z] = perm[z], i
    return Tensor._wrap(np.array(perm, dtype=dt.np), dt)


def randn_like(
    t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """Standard normal samples like ``t`` (torch's ``empty_like(t).normal_()``: ``t``'s layout,
    so a transposed ``t`` is filled in its memory order)."""
    tensor_arg("randn_like", t)
    given = sig.given(dtype=dtype, device=device)
    dtype = sig.RANDOM_LIKE["randn_like"].parse((t,), given)[1]["dtype"]
    out = empty_like(t, dtype=dtype, device=device)
    fill_fresh(out, normal_sampler(out, 0.0, 1.0, None))
    return out._requires_grad_(True) if requires_grad else out


def rand_like(
    t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """Uniform samples like ``t`` (torch's ``empty_like(t).uniform_()``)."""
    tensor_arg("rand_like", t)
    given = sig.given(dtype=dtype, device=device)
    dtype = sig.RANDOM_LIKE["rand_like"].parse((t,), given)[1]["dtype"]
    out = empty_like(t, dtype=dtype, device=device)
    fill_fresh(out, uniform_sampler(out, 0.0, 1.0, None))
    return out._requires_grad_(True) if requires_grad else out
