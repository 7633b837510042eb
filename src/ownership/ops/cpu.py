"""How torch's CPU kernels run on this machine: the SIMD width of their vectors and whether they
fuse ``a + b * c`` (by the CPU capability torch picks: :func:`ownership.distributions.capability`),
the number of threads torch starts with, and how ``at::parallel_for`` splits a range among them.

The values of a few kernels depend on these: ``arange`` and ``linspace`` (vector blocks, fused
multiply-adds: ``ownership.ops.range_factories``) and the order an in-place write over aliasing
memory is made in (``ownership.ops.loop_order``). The engine reads them as torch does, once.

>>> from ownership.ops.cpu import parts
>>> parts(10)
[(0, 10)]
"""

from __future__ import annotations

import os
import platform
from functools import cache

from ownership.distributions import contracted

__all__ = ["GRAIN_SIZE", "parts", "simd", "threads"]


@cache
def simd() -> tuple[int, bool]:
    """The width in bytes of torch's SIMD vectors on this machine, and whether its kernels fuse
    ``a + b * c`` (:func:`ownership.distributions.contracted`, by the capability torch picks:
    :func:`ownership.distributions.capability`). On x86 the vectors are 32 bytes whatever the
    pick: torch 2.13's AVX512 capability runs these kernels as its AVX2 build does (measured
    against torch on an AVX-512 CPU: ``arange``, the loops of in-place writes, ``sum``, ``exp``),
    and its DEFAULT build's generic vectors are 32 bytes too; ARM's NEON vectors are 16 bytes."""
    width = 16 if platform.machine().lower() in ("aarch64", "arm64") else 32
    return width, contracted()


GRAIN_SIZE = 32768
"""``at::internal::GRAIN_SIZE``: a range longer than this is split among torch's threads."""


def threads() -> int:
    """torch's intra-op thread count as a process starts it (its OpenMP threads, as many as MKL
    takes): ``MKL_NUM_THREADS`` or ``OMP_NUM_THREADS`` when set, else the physical cores this
    process may run on (hyperthreads of one core count once). Read when the engine is imported,
    as OpenMP reads it when torch is: a later change of the environment changes neither."""
    return _THREADS


def _starting_threads() -> int:
    for name in ("MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        given = os.environ.get(name, "").split(",")[0].strip()
        if given.isdigit() and int(given) > 0:
            return int(given)
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    cores = set()
    for cpu in cpus:
        try:
            with open(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list") as f:
                cores.add(f.read().strip())
        except OSError:
            cores.add(str(cpu))
    return len(cores) or os.cpu_count() or 1


_THREADS = _starting_threads()


def parts(n: int, grain: int = GRAIN_SIZE) -> list[tuple[int, int]]:
    """``at::parallel_for``'s split of ``range(n)`` (OpenMP): one part up to ``grain``
    elements, else ``min(threads, ceil(n / grain))`` parts of ``ceil(n / parts)``."""
    count = threads()
    if n <= grain or count == 1:
        return [(0, n)]
    count = min(count, -(-n // grain))
    size = -(-n // count)
    return [(b, min(n, b + size)) for b in range(0, n, size)]
