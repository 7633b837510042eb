"""torch's CPU samplers: from the engine's words (:mod:`ownership.mt19937`) to values, as ATen's
``DistributionsHelper.h``, ``TransformationHelper.h`` and ``cpu/DistributionTemplates.h`` do,
bit for bit. Each rule is stated once here:

- a unit float (:func:`unit_floats`): float32 takes the low 24 bits of one word, float64 the
  low 53 bits of a 64-bit draw (two words), times 2**-24 or 2**-53: a value in [0, 1);
- ``uniform_(from, to)``: ``u * (to - from) + from`` in the dtype (:func:`uniform`);
- ``normal_`` (:func:`normal`): 16 or more elements of a contiguous tensor are drawn as unit
  floats of the dtype and turned into normals 16 at a time (Box-Muller: the first 8 give the
  radii, the last 8 the angles; a length that is not a multiple of 16 redraws the last 16);
  otherwise each element is a float64 Box-Muller draw whose second value waits in the generator
  for the next element (even of a later call);
- ``random_(from, to)`` and ``randint``: a word (or, for ranges of 2**28 or more, a 64-bit draw)
  modulo the range, plus ``from`` (:func:`integers`);
- ``bernoulli``: a unit float below ``p``, in float64 for a float ``p`` or a float64 tensor of
  probabilities, in float32 for a float32 one (:func:`bernoulli`). (torch's source also has an
  MKL kernel for a float ``p``; its released builds leave it off, pytorch issue 132395.)

An in-place fill draws its values in the order of the tensor's memory (TensorIterator's order:
the dims from the largest stride to the smallest), so a transposed view gets torch's values in
torch's places (:func:`in_memory_order`).

Which ``a * b + c`` are rounded once (:func:`ownership.fused.fma`) follows torch's build: its
AVX2 and AVX512 kernels are compiled with FMA, and the compiler fuses them there
(:func:`contracted`); its normal kernels fuse ``x * std + mean`` in every build. The float32
logarithm, sine and cosine of the AVX2 normal kernel are Cephes' (:mod:`ownership.avx_mathfun`);
the other kernels call the C library's, as Python's :mod:`math` does. Checked against torch 2.13
on x86-64 with its AVX512, AVX2 and DEFAULT kernels (``tests/random``): the normal kernel is
built for AVX2 and DEFAULT only, so an AVX512 CPU runs the AVX2 build's (DispatchStub takes the
best build the CPU can run), Cephes' functions included.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
import os
import platform
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import avx_mathfun
from ownership.fused import fma
from ownership.mt19937 import MT19937

Array = NDArray[Any]
TWO_PI = 2.0 * math.pi


class Stream:
    """What a sampler draws from: the engine and the float64 normal waiting for the next draw
    (torch's ``next_double_normal_sample``; ``next_float_normal_sample`` only travels in the
    state bytes)."""

    def __init__(self, engine: MT19937) -> None:
        self.engine = engine
        self.next_double_normal: float | None = None
        self.next_float_normal: float | None = None


_X86 = ("x86_64", "amd64")


@functools.cache
def capability() -> str:
    """The CPU kernels torch runs here, by its ``compute_cpu_capability``: on x86,
    ``ATEN_CPU_CAPABILITY`` when it names one (``default``, ``avx2`` or ``avx512``, in lower case
    as torch compares it; torch ignores any other value), else AVX512 with AVX-512 F/BW/VL/DQ and
    FMA, AVX2 with AVX2 and FMA, else DEFAULT; DEFAULT on other machines (no x86 build). The
    CPU's flags come from ``/proc/cpuinfo`` where there is one (numpy's list hides what
    ``NPY_DISABLE_CPU_FEATURES`` disables, which torch still uses), else from numpy.

    The one statement of the rule: the ops' SIMD blocks read it too
    (:func:`ownership.ops.cpu.simd`)."""
    if platform.machine().lower() not in _X86:
        return "DEFAULT"
    asked = os.environ.get("ATEN_CPU_CAPABILITY", "")
    if asked in ("default", "avx2", "avx512"):
        return asked.upper()
    flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    tables = getattr(np, "_core", np).__dict__.get("_multiarray_umath")
    features: dict[str, bool] = getattr(tables, "__cpu_features__", {})
    names = {"AVX2": "avx2", "FMA3": "fma", "AVX512F": "avx512f", "AVX512BW": "avx512bw"}
    names |= {"AVX512VL": "avx512vl", "AVX512DQ": "avx512dq"}
    return {flag for feature, flag in names.items() if features.get(feature)}


def contracted() -> bool:
    """Whether torch's compiler fused ``a * b + c`` in the kernels it runs here: in its AVX2 and
    AVX512 builds on x86 (not in DEFAULT, whose x86 has no FMA); on other machines, where FMA is
    part of the architecture and compilers fuse by default."""
    return platform.machine().lower() not in _X86 or capability() != "DEFAULT"


def multiply_add(a: Array, b: Any, c: Any) -> Array:
    """``a * b + c`` in ``a``'s dtype as torch's compiled kernel computes it."""
    if contracted():
        return fma(a, b, c)
    product: Array = a * b
    return np.asarray(product + c, dtype=a.dtype)


def unit_floats(stream: Stream, n: int, dtype: np.dtype[Any]) -> Array:
    """``n`` floats in [0, 1): ``uniform_real_distribution(0, 1)`` of ``dtype``."""
    if dtype == np.float64:
        bits = stream.engine.words64(n) & np.uint64((1 << 53) - 1)
        return bits.astype(np.float64) * 2.0**-53
    low = stream.engine.words(n) & np.uint32((1 << 24) - 1)
    return low.astype(np.float32) * np.float32(2.0**-24)


def uniform(stream: Stream, n: int, dtype: np.dtype[Any], low: float, high: float) -> Array:
    """``n`` samples of U(low, high) of ``dtype`` (bounds and their difference in ``dtype``)."""
    lo, hi = dtype.type(low), dtype.type(high)
    return multiply_add(unit_floats(stream, n, dtype), hi - lo, lo)


def integers(stream: Stream, n: int, low: int, high: int) -> NDArray[np.int64]:
    """``n`` integers in [low, high): a draw modulo the range, plus ``low``."""
    span = high - low
    if span >= 1 << 28:
        draws = stream.engine.words64(n) % np.uint64(span)
    else:
        draws = (stream.engine.words(n) % np.uint32(span)).astype(np.uint64)
    return draws.astype(np.int64) + np.int64(low)


def bernoulli(stream: Stream, p: Any, n: int, p_dtype: np.dtype[Any]) -> NDArray[np.bool_]:
    """``n`` Bernoulli draws of probability ``p`` (a float or ``n`` probabilities): a unit float
    of ``p_dtype`` below ``p``."""
    return unit_floats(stream, n, p_dtype) < np.asarray(p, dtype=p_dtype)


@functools.cache
def libm(name: str, dtype: str) -> Callable[[Array], Array]:
    """The C library's ``name`` (``log``, ``cos``, ...) of ``dtype`` (``"float32"`` or
    ``"float64"``) over an array, element by
    element: what torch's scalar code calls (Python's :mod:`math` for float64, ``namef`` for
    float32), not numpy's own vectorised approximations."""
    if dtype == "float64":
        scalar: Any = getattr(math, name)
    else:
        lib = ctypes.CDLL(ctypes.util.find_library("m") or ctypes.util.find_library("c"))
        scalar = getattr(lib, name + "f")
        scalar.restype, scalar.argtypes = ctypes.c_float, [ctypes.c_float]
    each = np.frompyfunc(scalar, 1, 1)
    return lambda x: each(x).astype(dtype)


def _box_muller_16(u: Array, mean: Any, std: Any) -> Array:
    """torch's ``normal_fill_16`` over rows of 16 unit floats: ``1 - u[:8]`` gives the radii,
    ``u[8:]`` the angles; cosines then sines, each ``x * std + mean`` fused."""
    dtype: type[np.floating[Any]] = u.dtype.type
    u1, u2 = dtype(1) - u[:, :8], u[:, 8:]
    # normal_fill_16_AVX2: torch's normal kernel is built for AVX2, not AVX512, so an AVX512
    # machine runs the AVX2 build's kernel (DispatchStub takes the best build at most the CPU's)
    if dtype is np.float32 and capability() != "DEFAULT":
        radius = np.sqrt(np.float32(-2) * avx_mathfun.log256(u1))
        sin, cos = avx_mathfun.sincos256(np.float32(TWO_PI) * u2)
    else:
        name = u.dtype.name
        radius = np.sqrt(dtype(-2) * libm("log", name)(u1))
        theta = (TWO_PI * u2.astype(np.float64)).astype(dtype)
        sin, cos = libm("sin", name)(theta), libm("cos", name)(theta)
    return np.concatenate([fma(radius * cos, std, mean), fma(radius * sin, std, mean)], axis=1)


def _normal_blocks(stream: Stream, n: int, dtype: np.dtype[Any], mean: Any, std: Any) -> Array:
    """``normal_fill``: ``n >= 16`` normals 16 at a time, the last 16 redrawn when ``n`` is not a
    multiple of 16."""
    whole = n // 16 * 16
    out = np.empty(n, dtype=dtype)
    u = unit_floats(stream, n, dtype)
    out[:whole] = _box_muller_16(u[:whole].reshape(-1, 16), mean, std).ravel()
    if n % 16:
        tail = unit_floats(stream, 16, dtype).reshape(1, 16)
        out[n - 16 :] = _box_muller_16(tail, mean, std).ravel()
    return out


def _normal_one_by_one(stream: Stream, n: int, mean: float, std: float) -> NDArray[np.float64]:
    """``normal_distribution<double>`` ``n`` times: each pair of float64 unit floats gives
    ``r cos`` now and ``r sin`` for the next draw; each value is ``x * std + mean``."""
    values: list[float] = []
    if n and stream.next_double_normal is not None:
        values.append(stream.next_double_normal)
        stream.next_double_normal = None
    pairs = (n - len(values) + 1) // 2
    u = unit_floats(stream, 2 * pairs, np.dtype(np.float64)).reshape(pairs, 2)
    radius = np.sqrt(-2.0 * libm("log1p", "float64")(-u[:, 1]))
    theta = TWO_PI * u[:, 0]
    drawn = np.empty((pairs, 2))
    drawn[:, 0] = radius * libm("cos", "float64")(theta)
    drawn[:, 1] = radius * libm("sin", "float64")(theta)
    flat = np.concatenate([np.array(values), drawn.ravel()])
    if flat.size > n:
        stream.next_double_normal = float(flat[-1])
    return multiply_add(flat[:n], std, mean)


def normal(
    stream: Stream, n: int, dtype: np.dtype[Any], mean: float, std: float, contiguous: bool
) -> Array:
    """``n`` samples of N(mean, std**2) of ``dtype`` for a tensor ``contiguous`` or not."""
    if n >= 16 and contiguous:
        return _normal_blocks(stream, n, dtype, dtype.type(mean), dtype.type(std))
    return _normal_one_by_one(stream, n, mean, std).astype(dtype)


def in_memory_order(values: Array, shape: Sequence[int], strides: Sequence[int]) -> Array:
    """``values``, drawn one by one for a tensor of ``shape`` and ``strides`` in TensorIterator's
    order (the dims from the largest stride to the smallest), placed in the tensor's shape."""
    order = sorted(range(len(shape)), key=lambda d: -strides[d] if shape[d] > 1 else 0)
    placed = values.reshape([shape[d] for d in order])
    return placed.transpose(np.argsort(order))
