"""The values of ``arange`` and ``linspace`` as torch's CPU kernels compute them, bit for bit.

torch computes each element by a formula (``aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp``),
not by numpy's ``arange``/``linspace``, so their last bits differ (``torch.arange(-8.0, 8.0,
0.1)[80]`` is ``4.44e-16``, numpy's ``-2.84e-14``), and a ``relu`` of that element differs.

- ``arange``: ``start + step * i`` in the accumulate type (double for float32 and float64, int64
  for the ints), then cast. Blocks of two SIMD vectors take the vectorised formula: each vector's
  first element as the scalar one, cast, then ``base + k * step`` for its ``k``-th element
  (``Vectorized::arange``); the tail, shorter than two vectors, the scalar formula.
- ``linspace``: ``step = (end - start) / (steps - 1)`` in the dtype (double for an int dtype),
  ``start + step * i`` for the first half, ``end - step * (steps - i - 1)`` for the rest.

Which SIMD width, and whether ``a + b * c`` is one fused multiply-add, depends on the kernels
torch runs (:func:`ownership.ops.cpu.simd`): its x86 AVX2 and AVX512 kernels and its ARM ones are compiled with
contraction, so they fuse; its x86 ``default`` kernels (``ATEN_CPU_CAPABILITY=default``) do not.
:func:`fma` is that fused multiply-add, correctly rounded, in numpy.

torch splits a range of more than 32768 elements (``GRAIN_SIZE``) among its threads, each part
starting its own vector blocks: the engine splits it the same way, for the thread count torch
starts with (:func:`ownership.ops.cpu.threads`; a program that calls ``torch.set_num_threads`` changes torch's).

>>> import ownership
>>> ownership.arange(-8.0, 8.0, 0.1)[80].item()
4.440892098500626e-16
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes
from ownership.ops.cpu import parts, simd

__all__ = ["arange_length", "arange_values", "fma", "linspace_values"]


def _two_sum(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[Any, Any]:
    """``s, e`` with ``s = a + b`` rounded and ``s + e == a + b`` exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: NDArray[np.float64]) -> tuple[Any, Any]:
    """Veltkamp's split of a double into two halves of 26 bits."""
    c = a * 134217729.0  # 2**27 + 1
    high = c - (c - a)
    return high, a - high


def _two_product(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[Any, Any]:
    """``p, e`` with ``p = a * b`` rounded and ``p + e == a * b`` exactly (Dekker)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _odd_sum(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """``a + b`` rounded to odd: when inexact, the neighbour whose last bit is 1."""
    s, e = _two_sum(a, b)
    even = (s.view(np.int64) & 1) == 0
    nudge = (e != 0) & even
    toward = np.where(e > 0, np.inf, -np.inf)
    out: NDArray[np.float64] = np.where(nudge, np.nextafter(s, toward), s)
    return out


def fma(a: Any, b: Any, c: Any, dt: np.dtype[Any]) -> NDArray[Any]:
    """``a * b + c`` rounded once to ``dt`` (float64 or float32), as a hardware FMA rounds it.

    float64: Boldo and Melquiond's emulation (the exact product and sum split in two, their
    low parts added rounded to odd). float32: the product of two floats is exact in double, and
    a sum rounded to odd in double rounds correctly to float.

    >>> float(fma(0.1, 10.0, -1.0, np.dtype(np.float64)))
    5.551115123125783e-17
    """
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        if dt == np.float32:
            return _odd_sum(a * b, c).astype(np.float32)
        ph, pl = _two_product(a, b)
        th, tl = _two_sum(c, ph)
        out: NDArray[Any] = th + _odd_sum(tl, pl)
        return np.where(np.isfinite(out), out, a * b + c)


def _affine(base: Any, step: Any, k: Any, dt: np.dtype[Any], fused: bool) -> NDArray[Any]:
    """``base + step * k`` computed in ``dt`` (float32 or float64): one rounding when the
    kernels fuse, else the product rounded and then the sum."""
    base, step, k = (np.asarray(v).astype(dt) for v in (base, step, k))
    if fused:
        return fma(step, k, base, dt)
    with np.errstate(all="ignore"):
        out: NDArray[Any] = base + step * k
    return out


def _accumulate(dt: dtypes.dtype) -> np.dtype[Any]:
    """torch's ``acc_type`` on CPU: double for the floats, int64 for the ints."""
    return np.dtype(np.float64 if dt.is_floating_point else np.int64)


def _as(value: Any, acc: np.dtype[Any]) -> Any:
    """``Scalar::to<acc>``: a float given for an int dtype is truncated."""
    return acc.type(math.trunc(value) if acc.kind == "i" else value)


def arange_length(start: Any, end: Any, step: Any, dt: dtypes.dtype) -> int:
    """torch's number of elements: ``ceil((end - start) / step)`` in double, or, for int64,
    in int64 of the truncated bounds (``(end - start + step - sign) / step``, C's division,
    which truncates)."""
    if dt is dtypes.int64:
        lo, hi, st = (math.trunc(v) for v in (start, end, step))
        if st == 0:  # a fractional step truncated to 0: torch's ValueError
            raise ValueError("step must be nonzero")
        sign = (st > 0) - (st < 0)
        span = hi - lo + st - sign
        count = abs(span) // abs(st)
        return count if (span >= 0) == (st > 0) else 0
    return max(0, math.ceil((float(end) - float(start)) / float(step)))


def arange_values(start: Any, step: Any, n: int, dt: dtypes.dtype) -> NDArray[Any]:
    """The ``n`` values of ``arange`` from ``start`` by ``step`` in ``dt``, as torch's kernel
    computes them (see the module's docstring)."""
    acc = _accumulate(dt)
    first, by = _as(start, acc), _as(step, acc)
    index = np.arange(n, dtype=np.int64)
    if not dt.is_floating_point:
        with np.errstate(all="ignore"):
            ints: NDArray[Any] = (first + by * index).astype(dt.np)
        return ints
    width, fused = simd()
    out = _affine(first, by, index, acc, fused).astype(dt.np)
    size = width // dt.itemsize
    for begin, end in parts(n):  # each part starts its own blocks of two vectors
        vectorised = begin + (end - begin) - (end - begin) % (2 * size)
        at = index[begin:vectorised]
        k = (at - begin) % size
        base = out[at - k]  # each vector's first element: the scalar formula
        out[begin:vectorised] = _affine(base, by, k, acc, fused).astype(dt.np)
    return out


def linspace_values(start: Any, end: Any, steps: int, dt: dtypes.dtype) -> NDArray[Any]:
    """The ``steps`` values of ``linspace`` in ``dt``, as torch's kernel computes them: its
    step in the dtype (double for an int dtype), each half from its own end."""
    if steps <= 0:
        return np.zeros(0, dtype=dt.np)
    if steps == 1:
        return np.full(1, start).astype(dt.np)  # torch's ``fill_(start)``
    width_type = dt.np if dt.is_floating_point else np.dtype(np.float64)
    lo, hi = (np.array(v).astype(dt.np) for v in (start, end))  # ``Scalar::to<scalar_t>``
    lo_w, hi_w = lo.astype(width_type), hi.astype(width_type)
    with np.errstate(all="ignore"):
        step = ((hi_w - lo_w) / width_type.type(steps - 1)).astype(width_type)
    _, fused = simd()
    index = np.arange(steps, dtype=np.int64)
    halfway = steps // 2
    ahead = index[:halfway].astype(width_type)
    behind = (steps - index[halfway:] - 1).astype(width_type)
    first = _affine(lo_w, step, ahead, width_type, fused)
    second = _affine(hi_w, -step, behind, width_type, fused)  # ``end - step * n``
    return np.concatenate([first, second]).astype(dt.np)
