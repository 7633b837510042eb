"""Which SIMD kernels numpy and torch run here, and the reduced set the baseline test run uses.

numpy and torch each pick their kernels (``exp``, ``tanh``, sums ...) at import, by what the CPU
offers, so float32 results differ in the last bits between machines. ``make pytest-baseline`` runs
the differential suites again with both engines held to their baseline kernels, so a tolerance
tuned to one CPU fails here rather than on a learner's laptop:

- numpy: ``NPY_DISABLE_CPU_FEATURES`` set to every *dispatchable* feature this CPU has (numpy
  refuses to disable its baseline, the features it was compiled to assume);
- torch: ``ATEN_CPU_CAPABILITY=default``.

Only the tests whose outcome can depend on the kernels run again: the suites of
:data:`NUMERIC_SUITES`, less the files of :data:`EXACT_FILES`. The choice is made per file, by
what a file's tests compare:

- run again: a test comparing floating-point values that went through a kernel that differs
  between CPUs: reductions and scans (``sum``, ``mean``, ``var``, ``cumsum``, ``prod``, the
  gradients that unbroadcast by summing), matmul and the layers and losses built on it,
  transcendental functions (``exp``, ``log``, ``tanh``, ``pow``, ``softmax``, ``erf``, ...), fused
  multiply-adds (optimizer steps, ``arange``), seeded random draws and the order of sorts. Every
  file that compares values bit for bit (``support.bits``), by finite differences
  (``gradcheck``) or through random programs (``support.fuzz``, ``support.programs``) is one of
  them, outside the numeric suites too (:data:`FLOAT_COMPARISONS`; tests/build/test_make_targets.py
  checks that each such file is run again);
- left out: a file whose tests compare only what no kernel computes: errors and messages,
  warnings and their frames, flags, dtypes, shapes and strides, versions, which objects are freed
  or shared, node names and what nodes save, hook order, module bookkeeping (registration,
  traversal, ``state_dict`` keys), integers and bools, selections and copies of elements
  (``maximum``, ``clamp``, ``masked_fill``, ``where``, rounding, signed zeros), and learning-rate
  schedules (Python floats, computed by the ``math`` module in both engines). The floats such a
  file compares come from elementwise operations that IEEE rounds correctly (``+``, ``-``, ``*``,
  ``/``, ``sqrt``, casts) on small exact data, so they are the same bits on every kernel.

A new test file in a numeric suite runs again unless it is added to :data:`EXACT_FILES`, with the
reason of its group there.

Run as a script (``python tests/support/kernels.py``), this prints the value for
``NPY_DISABLE_CPU_FEATURES``; with ``--suites``, pytest's arguments for the baseline run (the
Makefile and noxfile.py read them here). :func:`summary` is the line pytest prints in its header.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

# The suites `make pytest-baseline` runs again on baseline kernels (tests/README.md): folders, and
# files of other folders that compare floats through the kernels (gradcheck).
NUMERIC_SUITES = (
    "tests/ops",
    "tests/autograd",
    "tests/nn",
    "tests/optim",
    "tests/programs",
    "tests/harness",
    "tests/benchmarks",
    "tests/random",
    "tests/inplace/test_inplace_view.py",
    "tests/pytorch_autograd/test_custom_function_inplace.py",
    "tests/pytorch_autograd/test_custom_function_outputs.py",
)
# Files of those suites whose outcome no kernel decides (the module's docstring gives the rule).
EXACT_FILES = (
    # integers and bools only (division and remainder are correctly rounded in every kernel)
    "tests/ops/test_bitwise.py",
    "tests/ops/test_shifts.py",
    "tests/ops/test_bool_operands.py",
    "tests/ops/test_integer_division.py",
    "tests/ops/test_all_any.py",
    "tests/ops/test_value_tests.py",
    "tests/ops/test_searchsorted.py",
    # selections, copies and single correctly rounded operations: the same bits on every kernel
    "tests/ops/test_extrema.py",
    "tests/ops/test_masked_fill.py",
    "tests/ops/test_clamp_zero_signs.py",
    "tests/ops/test_clamp_double_backward.py",
    "tests/ops/test_sign.py",
    "tests/ops/test_rounding.py",
    "tests/ops/test_isclose.py",
    "tests/ops/test_float_operands.py",
    "tests/ops/test_square_nan_to_num.py",
    "tests/ops/test_tensor_type.py",
    # which ops are reachable and how, dtypes, refusals, floating-point reports, recorded edges
    "tests/ops/test_surface.py",
    "tests/ops/test_dtype_kernels.py",
    "tests/ops/test_result_dtypes_under_grad.py",
    "tests/ops/test_quiet_ops.py",
    "tests/ops/test_record_paths.py",
    # the graph: which objects are freed or shared, node names and classes, what nodes save,
    # warnings and anomaly mode's messages
    "tests/autograd/test_graph_memory.py",
    "tests/autograd/test_unseen.py",
    "tests/autograd/test_threads_one_accumulator.py",
    "tests/autograd/test_graph.py",
    "tests/autograd/test_node_classes.py",
    "tests/autograd/test_saved_names.py",
    "tests/autograd/test_backward_formulas.py",
    "tests/autograd/test_backward_warning_frame.py",
    "tests/autograd/test_anomaly_mode.py",
    "tests/nn/test_fused_ops_edges.py",
    # module bookkeeping: registration, paths, traversal, repr, state_dict keys and hooks, copies
    "tests/nn/test_buffer.py",
    "tests/nn/test_parameter.py",
    "tests/nn/test_extra_state.py",
    "tests/nn/test_identity_and_flatten.py",
    "tests/nn/test_containers.py",
    "tests/nn/test_module_paths.py",
    "tests/nn/test_module_registration.py",
    "tests/nn/test_module_repr.py",
    "tests/nn/test_module_traversal.py",
    "tests/nn/test_module_trees_hypothesis.py",
    "tests/nn/test_state_dict.py",
    "tests/nn/test_state_dict_hooks.py",
    "tests/nn/test_copies_and_metadata.py",
    # learning-rate schedules: Python floats from the math module, in both engines
    "tests/optim/test_lr_scheduler.py",
    "tests/optim/test_composite_schedules.py",
    "tests/optim/test_cyclic_schedules.py",
    "tests/optim/test_reduce_lr_on_plateau.py",
    "tests/optim/test_tensor_lrs.py",
    # the benchmark runner's rows, sections and memory budgets (no floating-point value compared)
    "tests/benchmarks/test_bench_runner.py",
)
# What marks a test file as comparing floats through the kernels, whatever its folder: values bit
# for bit, finite differences, random programs. Each file matching one is run again.
FLOAT_COMPARISONS = (
    r"^from support\.bits import",
    r"^from support\.(fuzz|programs) import",
    r"\bgradcheck\(",
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
