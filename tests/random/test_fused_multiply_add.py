"""``ownership.fused.fma``, which torch's fused kernels need: ``a * b + c`` rounded once, checked
against exact rational arithmetic, with the cases where rounding twice goes wrong (a float64 sum
exactly halfway between two float32; products whose low part decides the last bit)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from ownership.fused import fma


def _exact(a: np.ndarray, b: np.ndarray, c: np.ndarray, dtype: type) -> list[float]:
    """The correctly rounded ``a * b + c`` of each element (Fraction's float is correctly
    rounded to float64; numpy's cast of a float64 that is exactly a float32 is exact)."""
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True):
        value = Fraction(x) * Fraction(y) + Fraction(z)
        if dtype is np.float64:
            out.append(float(value))
        else:  # round to float32 by hand: the two neighbours, the nearer (even on a tie)
            near = np.float32(float(value))
            below = (
                near if Fraction(float(near)) <= value else np.nextafter(near, np.float32(-np.inf))
            )
            above = np.nextafter(below, np.float32(np.inf))
            low, high = value - Fraction(float(below)), Fraction(float(above)) - value
            even = below if int(below.view(np.uint32)) % 2 == 0 else above
            out.append(float(below if low < high else above if high < low else even))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_operands(dtype: type) -> None:
    rng = np.random.default_rng(0)
    n = 3000
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)).astype(dtype)
    b = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)).astype(dtype)
    c = np.where(rng.random(n) < 0.5, -(a.astype(np.float64) * b), rng.standard_normal(n))
    c = c.astype(dtype)
    assert fma(a, b, c).tolist() == _exact(a, b, c, dtype)


def test_float32_sums_halfway_between_two_float32() -> None:
    """``(1 + 2**-12)**2 = 1 + 2**-11 + 2**-24`` is halfway between two float32: plus or minus
    ``2**-70`` it must round up or down, where the float64 sum (the halfway point itself) would
    tie to even."""
    a = np.full(3, 1 + 2.0**-12, dtype=np.float32)
    c = np.array([2.0**-70, -(2.0**-70), 0.0], dtype=np.float32)
    rounded = fma(a, a, c).tolist()
    assert rounded == _exact(a, a, c, np.float32)
    assert rounded[0] == 1 + 2.0**-11 + 2.0**-23 and rounded[1] == rounded[2] == 1 + 2.0**-11


def test_float64_keeps_what_two_roundings_lose() -> None:
    a = np.array([1 + 2.0**-30, 1 + 2.0**-52, 3.0])
    c = np.array([-(1 + 2.0**-29), -1.0, -9.0])
    assert fma(a, a, c).tolist() == _exact(a, a, c, np.float64)
    assert fma(a, a, c)[0] == 2.0**-60
