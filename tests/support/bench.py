"""``bench/run.py`` loaded as the module ``bench_run``, once per process, for tests/benchmarks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench" / "run.py"
NAME = "bench_run"


def load() -> ModuleType:
    """The benchmark runner as a module (its ``cases``, ``main``, goals and budgets)."""
    if NAME in sys.modules:
        return sys.modules[NAME]
    spec = importlib.util.spec_from_file_location(NAME, BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module
    spec.loader.exec_module(module)
    return module
