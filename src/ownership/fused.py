"""``fma(a, b, c)``: ``a * b + c`` rounded once, as a fused multiply-add instruction gives it.

torch's CPU kernels compute some ``a * b + c`` with one rounding (the compiler fuses them in its
AVX2/AVX512 builds, and a few kernels ask for it): numpy rounds the product and then the sum,
which differs in the last bit about once in two. Both are exact here:

- float32: the product is exact in float64 (24 + 24 bits fit in 53) and the sum, rounded *to
  odd* in float64 (kept odd when inexact), rounds to float32 correctly: 53 >= 24 + 2. Rounding
  to nearest instead differs from that only when the float64 sum falls exactly halfway between
  two float32, so only those are rounded to odd.
- float64: Boldo and Melquiond's emulation ("Emulation of FMA and correctly rounded sums: proved
  algorithms using rounding to odd", IEEE TC 2008): the product split exactly into two doubles
  (Dekker), added to ``c`` by error-free sums, the small parts rounded to odd, one final rounding.

>>> import numpy as np
>>> a = np.array([1 + 2.0**-30]); c = np.array([-(1 + 2.0**-29)])
>>> float((a * a + c)[0]), float(fma(a, a, c)[0])  # a*a = 1 + 2^-29 + 2^-60: only fma keeps 2^-60
(0.0, 8.673617379884035e-19)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.floating[Any]]


def _two_sum(a: Floats, b: Floats) -> tuple[Floats, Floats]:
    """``s + e == a + b`` exactly, ``s`` the rounded sum (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a: Floats, b: Floats) -> tuple[Floats, Floats]:
    """``p + e == a * b`` exactly, ``p`` the rounded product (Dekker, Veltkamp's split)."""
    p = a * b

    def split(x: Floats) -> tuple[Floats, Floats]:
        scaled = x * 134217729.0  # 2**27 + 1
        high = scaled - (scaled - x)
        return high, x - high

    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s: Floats, e: Floats) -> Floats:
    """``s + e`` (``s`` its rounded sum, ``e`` the exact rest) rounded to odd: ``s`` when exact or
    odd, else its neighbour towards ``e``."""
    odd = (s.view(np.uint64) & np.uint64(1)) == 1
    return np.where((e != 0) & ~odd, np.nextafter(s, np.copysign(np.inf, e)), s)


def fma(a: Any, b: Any, c: Any) -> Floats:
    """``a * b + c`` with one rounding, in the dtype of ``a`` (float32 or float64 arrays; ``b``
    and ``c`` may be scalars of that dtype)."""
    dtype = np.asarray(a).dtype
    a64, b64, c64 = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    if dtype == np.float32:
        total = np.asarray(
            a64 * b64 + c64
        )  # the product is exact; the sum is rounded once, in float64
        # Rounding that to float32 rounds twice only when it lands exactly halfway between two
        # float32 (the 29 bits float32 drops are 1 then 28 zeros): those few go to odd first.
        halfway = (total.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)
        if halfway.any():
            p, c_ = np.broadcast_arrays(a64 * b64, c64)
            total[halfway] = _round_to_odd(*_two_sum(p[halfway], c_[halfway]))
        return total.astype(np.float32)
    high, low = _two_product(a64, b64)
    sum_high, sum_low = _two_sum(c64, high)
    return sum_high + _round_to_odd(*_two_sum(sum_low, low))
