"""Which SIMD kernels numpy and torch run here, and the reduced set the baseline test run uses.

numpy and torch each pick their kernels (``exp``, ``tanh``, sums ...) at import, by what the CPU
offers, so float32 results differ in the last bits between machines. ``make pytest-baseline`` runs
the differential suites again with both engines held to their baseline kernels, so a tolerance
tuned to one CPU fails here rather than on a learner's laptop:

- numpy: ``NPY_DISABLE_CPU_FEATURES`` set to every *dispatchable* feature this CPU has (numpy
  refuses to disable its baseline, the features it was compiled to assume);
- torch: ``ATEN_CPU_CAPABILITY=default``.

Only the numerically sensitive suites run again (:data:`NUMERIC_SUITES`): those whose results go
through the kernels that differ, the floating-point values of ops, reductions, matmul, gradients,
layers and optimizers. The suites of errors and messages, views, versions, in-place rules and grad
modes compare names, flags and exact integers, the same on any kernel; so do the integer and bool
suites of ``ops`` (:data:`EXACT_FILES`), whose results are exact on every CPU.

Run as a script (``python tests/support/kernels.py``), this prints the value for
``NPY_DISABLE_CPU_FEATURES``; with ``--suites``, pytest's arguments for the baseline run (the
Makefile and noxfile.py read them here). :func:`summary` is the line pytest prints in its header.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

# The suites `make pytest-baseline` runs again on baseline kernels (tests/README.md).
NUMERIC_SUITES = (
    "tests/ops",
    "tests/autograd",
    "tests/nn",
    "tests/optim",
    "tests/programs",
    "tests/harness",
    "tests/benchmarks",
    "tests/random",
)
# Files of those suites whose results are exact on every CPU: integers and bools only (division
# and remainder are correctly rounded in every kernel), which ops are reachable, or the benchmark
# runner's rows, sections and memory budgets (no floating-point value compared).
EXACT_FILES = (
    "tests/ops/test_bitwise.py",
    "tests/ops/test_shifts.py",
    "tests/ops/test_bool_operands.py",
    "tests/ops/test_integer_division.py",
    "tests/ops/test_surface.py",
    "tests/benchmarks/test_bench_runner.py",
)


def baseline_arguments() -> list[str]:
    """pytest's arguments for the baseline run: the numeric suites, less their exact files."""
    return [*NUMERIC_SUITES, *(f"--ignore={path}" for path in EXACT_FILES)]


def _numpy_tables() -> Any:
    try:  # numpy 2
        from numpy._core import _multiarray_umath as tables
    except ImportError:  # numpy 1.26
        from numpy.core import _multiarray_umath as tables  # type: ignore[no-redef]
    return tables


def features() -> dict[str, bool]:
    """numpy's CPU features: which this CPU has and numpy uses (False: absent or disabled)."""
    return dict(_numpy_tables().__cpu_features__)


def dispatchable() -> list[str]:
    """The features numpy dispatches to at run time that this CPU has (those it can disable);
    empty under ``NPY_DISABLE_CPU_FEATURES`` naming them all."""
    tables = _numpy_tables()
    return [f for f in tables.__cpu_dispatch__ if tables.__cpu_features__.get(f)]


def requested() -> list[str]:
    """The numpy features this process was asked to disable."""
    return os.environ.get("NPY_DISABLE_CPU_FEATURES", "").replace(",", " ").split()


def summary() -> str:
    """One line: the numpy features disabled and in use, and torch's CPU capability."""
    import torch

    tables = _numpy_tables()
    used = dispatchable() or ["none"]
    off = requested() or ["none"]
    return (
        f"kernels: numpy {np.__version__} baseline {' '.join(tables.__cpu_baseline__)}, "
        f"dispatching {' '.join(used)} (disabled: {' '.join(off)}); "
        f"torch {torch.__version__} {torch.backends.cpu.get_cpu_capability()}"
    )


if __name__ == "__main__":
    print(" ".join(baseline_arguments() if "--suites" in sys.argv[1:] else dispatchable()))
