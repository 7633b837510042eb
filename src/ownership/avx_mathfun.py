"""The float32 logarithm, sine and cosine of torch's AVX2 normal sampler, bit for bit.

torch's AVX2 build fills a contiguous float32 tensor of 16 or more normals with Box-Muller over
blocks of 16 (``normal_fill_16_AVX2`` in ATen's ``cpu/DistributionTemplates.h``), using
``log256_ps`` and ``sincos256_ps`` of ``avx_mathfun.h``: Cephes' float polynomials, not the C
library's functions. This module is those two functions in numpy float32, step for step, with
the multiply-adds the compiler fused (GCC contracts ``a * b + c`` into one FMA in that build)
rounded once, by :func:`ownership.fused.fma`. Every float32 input the sampler can give them
(``1 - k / 2**24`` for the logarithm, ``2 pi k / 2**24`` for the angle) was checked against
torch.

>>> import numpy as np
>>> x = np.array([1.0, 0.5, 2.0], dtype=np.float32)
>>> [float(v) for v in log256(x)] == [float(v) for v in np.log(x)]
True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ownership.fused import fma

F32 = NDArray[np.float32]
f32 = np.float32

_LOG_POLY = (
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
)
_LOG_Q1 = f32(-2.12194440e-4)
_LOG_Q2 = f32(0.693359375)
_SQRT_HALF = f32(0.707106781186547524)
_FOUR_OVER_PI = f32(1.27323954473516)
_MINUS_DP = (f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8))
_COS_POLY = (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002)
_SIN_POLY = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_SIGN = np.uint32(0x80000000)


def _horner(coefficients: tuple[float, ...], x: F32) -> F32:
    """``((c0 x + c1) x + c2) ...``, each step one fused multiply-add."""
    y = np.full_like(x, f32(coefficients[0]))
    for c in coefficients[1:]:
        y = fma(y, x, f32(c))
    return y


def log256(x: F32) -> F32:
    """``log256_ps``: the natural logarithm of positive normal float32 ``x``."""
    bits = np.maximum(x, np.uint32(0x00800000).view(f32)).view(np.uint32)
    exponent = (bits >> np.uint32(23)).astype(np.int32) - 0x7F
    mantissa = ((bits & np.uint32(0x807FFFFF)) | f32(0.5).view(np.uint32)).view(f32)  # [0.5, 1)
    e = exponent.astype(f32) + f32(1)
    small = mantissa < _SQRT_HALF
    m = (mantissa - f32(1)) + np.where(small, mantissa, f32(0))
    e = e - np.where(small, f32(1), f32(0))
    z = m * m
    y = _horner(_LOG_POLY, m) * m
    y = fma(y, z, e * _LOG_Q1)
    y = fma(z, f32(-0.5), y)
    return fma(e, _LOG_Q2, m + y)


def sincos256(x: F32) -> tuple[F32, F32]:
    """``sincos256_ps``: the sine and the cosine of float32 ``x``."""
    sign_sin = x.view(np.uint32) & _SIGN
    x = np.abs(x)
    j = (x * _FOUR_OVER_PI).astype(np.int32)  # truncation (cvttps)
    j = (j + 1) & ~1
    y = j.astype(f32)
    swap_sin = ((j & 4) << 29).astype(np.uint32)
    sign_cos = ((~(j - 2) & 4) << 29).astype(np.uint32)
    cosine_first = (j & 2) == 0
    for dp in _MINUS_DP:  # extended-precision reduction: x - y * pi / 4
        x = fma(y, dp, x)
    z = x * x
    near_zero_cos = fma(_horner(_COS_POLY, z) * z, z, -(z * f32(0.5))) + f32(1)
    near_zero_sin = fma(_horner(_SIN_POLY, z) * z, x, x)
    s = np.where(cosine_first, near_zero_sin, near_zero_cos)
    c = np.where(cosine_first, near_zero_cos, near_zero_sin)
    sin = (s.view(np.uint32) ^ (sign_sin ^ swap_sin)).view(f32)
    cos = (c.view(np.uint32) ^ sign_cos).view(f32)
    return sin, cos
