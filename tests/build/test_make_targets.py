"""The test tooling: pytest on every core, its cache on, `make check`, `make nox`, the baseline
pass on the numeric suites only, and a docs extra without scikit-learn.

Each is a promise of the README or of CONTRIBUTING.md that a later edit could quietly break.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType

from support import kernels

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
MAKEFILE = (ROOT / "Makefile").read_text()


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _recipe(target: str) -> str:
    match = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", MAKEFILE, re.MULTILINE)
    assert match, f"the Makefile has no target {target}"
    return match[1]


def test_pytest_runs_on_every_core() -> None:
    assert any(
        r.startswith("pytest-xdist") for r in PYPROJECT["project"]["optional-dependencies"]["test"]
    )
    assert "PYTEST := $(BIN)/python -m pytest -n $(PYTEST_WORKERS)" in MAKEFILE
    for target in ("pytest", "pytest-baseline", "site-tests", "check"):
        assert "$(PYTEST)" in _recipe(target), target


def test_the_cache_provider_is_on_in_an_ignored_folder() -> None:
    options = PYPROJECT["tool"]["pytest"]["ini_options"]
    assert "cacheprovider" not in options["addopts"]
    top = Path(options["cache_dir"]).parts[0]
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert f"{top}/" in ignored or top in ignored, f"{top} is not in .gitignore"


def test_make_check_lints_types_and_runs_the_touched_tests() -> None:
    recipe = _recipe("check")
    for step in ("ruff check .", "ruff format --check .", "$(BIN)/mypy", "tools/changed_tests.py"):
        assert step in recipe, step


def test_make_nox_installs_nox_from_the_lock() -> None:
    assert "-c constraints.txt" in _recipe("nox") and ".[nox]" in _recipe("nox")
    assert PYPROJECT["project"]["optional-dependencies"]["nox"]


def test_the_changed_tests_are_picked() -> None:
    changed = _tool("changed_tests")
    picked = changed.selected(
        [
            "tests/views/test_basics.py",  # gone (deleted by the change): nothing to run
            "tests/doctor/test_cli.py",
            "src/ownership/tolerance.py",
            "src/ownership/drills/__init__.py",
            "src/ownership/core/inplace_rules.py",
            "tests/support/kernels.py",
            "docs/guide/first-look.md",
        ]
    )
    assert "tests/doctor/test_cli.py" in picked
    assert "src/ownership/tolerance.py" in picked  # its doctests
    assert "tests/harness/test_tolerance.py" in picked  # names ownership.tolerance
    assert "tests/drills/test_drills.py" in picked  # the tool's folder
    assert "tests/inplace/test_inplace_rules.py" in picked  # the concept the module is named after
    assert "tests/build/test_build_rules.py" not in picked  # names inplace_rules, imports nothing
    assert "tests/harness/test_kernels.py" in picked  # imports support.kernels
    assert not any(p.startswith(("tests/site", "tests/views/test_basics")) for p in picked)
    assert changed.selected(["docs/guide/first-look.md", "README.md"]) == []


def _in_baseline(path: str) -> bool:
    """Whether the baseline pass runs the test file ``path`` (relative to the checkout)."""
    suites = kernels.NUMERIC_SUITES
    inside = any(path == suite or path.startswith(f"{suite}/") for suite in suites)
    return inside and path not in kernels.EXACT_FILES


def test_the_baseline_pass_runs_the_numeric_suites_only() -> None:
    """The selection names existing folders and files; each file left out is inside a suite (so
    leaving it out means something), and every test file that compares floats through the kernels
    (``kernels.FLOAT_COMPARISONS``: bit for bit, gradcheck, random programs), in whatever folder,
    is run again, as are the files that compare the kernels' floats by name."""
    for suite in kernels.NUMERIC_SUITES:
        assert (ROOT / suite).is_dir() or (ROOT / suite).is_file(), suite
    assert len(set(kernels.EXACT_FILES)) == len(kernels.EXACT_FILES)
    for path in kernels.EXACT_FILES:
        assert (ROOT / path).is_file(), path
        assert any(path.startswith(f"{suite}/") for suite in kernels.NUMERIC_SUITES), path
    assert not {"tests/errors", "tests/views", "tests/versions"} & set(kernels.NUMERIC_SUITES)
    marks = [re.compile(m, re.MULTILINE) for m in kernels.FLOAT_COMPARISONS]
    files = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "tests").rglob("test_*.py")
        if not {"build", "site"} & set(p.parts)
    )
    floats = [f for f in files if any(m.search((ROOT / f).read_text()) for m in marks)]
    assert len(floats) >= 15, floats  # the marks still find what they are meant to
    assert [f for f in floats if not _in_baseline(f)] == []
    for named in (
        "tests/ops/test_ops.py",  # every op's values and gradients
        "tests/ops/test_range_factories.py",  # arange bit for bit (SIMD blocks, fused adds)
        "tests/ops/test_sort_topk.py",  # the order of ties
        "tests/ops/test_statistics.py",  # var and norm: reductions
        "tests/ops/test_log1p_expm1_erf.py",  # transcendental functions
        "tests/autograd/test_autograd_grad.py",  # gradients that unbroadcast by summing
        "tests/nn/test_functional.py",  # softmax, losses
        "tests/nn/test_layers.py",  # matmul
        "tests/optim/test_adaptive_optimizers.py",  # fused multiply-adds of the steps
        "tests/harness/test_kernels.py",  # that the baseline variables take effect
    ):
        assert _in_baseline(named), named
    assert "tests/support/kernels.py --suites" in _recipe("pytest-baseline")
    assert "kernels.py" in (ROOT / "noxfile.py").read_text()


def test_no_page_needs_scikit_learn() -> None:
    """The training page reads its digits from the file beside it; the docs extra and the lock
    carry neither scikit-learn nor scipy (about 165 MB for one call)."""
    pages = [p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts]
    assert [p.name for p in pages if re.search(r"\bsklearn\b", p.read_text())] == []
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert not any(r.startswith(("scikit-learn", "scipy")) for e in extras.values() for r in e)
    lock = (ROOT / "constraints.txt").read_text()
    assert not re.search(r"^(scikit-learn|scipy)==", lock, re.MULTILINE)
    assert (ROOT / "docs" / "related" / "digits.npz").is_file()
