"""The tests a change touches, for `make check`: ``python tools/changed_tests.py [BASE]``.

The change is every file that differs from ``BASE`` (a commit; by default where this branch
left ``main``, or ``HEAD`` without a ``main``), committed or not, plus the untracked files. It
prints the test paths to run, one per line (nothing when no test is touched):

- a changed test file, or every test file of the folder of a changed ``conftest.py``;
- every test file that imports a changed helper of ``tests/support``;
- a changed module of ``src/ownership``: the module itself (its doctests) and every test file
  that imports it (``import ownership.ops.table``, ``from ownership.ops import table``); a module
  of a tool's package (``ownership/doctor/...``) also brings the tool's folder (``tests/doctor``),
  a module of the package itself or of its core the folders of the concepts it is named after
  (``core/inplace_rules``: ``tests/inplace``);
- the build's own files (Makefile, conf.py, docs/_ext, tools, pyproject.toml, constraints):
  ``tests/build``; ``bench/``: ``tests/benchmarks``.

It is a selection for a quick answer, not a proof: the engine's core is exercised by most
tests without naming it, and `make test` runs them all.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
BUILD_FILES = ("Makefile", "conf.py", "pyproject.toml", "constraints.txt", "constraints.in")


def _git(*args: str) -> list[str]:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return [line for line in done.stdout.splitlines() if line]


def base_commit() -> str:
    """Where this branch left ``main`` (``HEAD`` when there is no ``main``)."""
    try:
        return _git("merge-base", "HEAD", "main")[0]
    except (subprocess.CalledProcessError, IndexError):
        return "HEAD"


def changed_files(base: str) -> list[str]:
    """Files that differ from ``base`` (committed, staged or not) and the untracked ones."""
    changed = _git("diff", "--name-only", base) + _git("ls-files", "--others", "--exclude-standard")
    return sorted(set(changed))


def _test_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("test_*.py"))


def _imports_of(module: str) -> re.Pattern[str]:
    """An import of ``module`` (dotted) in a test file: ``import a.b``, ``from a.b import x``,
    ``from a import b`` (in parentheses too)."""
    package, _, name = module.rpartition(".")
    forms = [rf"^\s*import {re.escape(module)}\b", rf"^\s*from {re.escape(module)} import\b"]
    if package:
        forms.append(
            rf"^\s*from {re.escape(package)} import (?:\([^)]*|[^\n(]*)\b{re.escape(name)}\b"
        )
    return re.compile("|".join(forms), re.MULTILINE)


def _concept_folders(stem: str) -> list[Path]:
    """The test folders a module of the engine is named after (``inplace_rules``: ``inplace``,
    ``tensor_autograd``: ``tensor`` and ``autograd``, ``grad_mode``: ``grad_modes``)."""
    words = [stem.strip("_"), *(w for w in stem.strip("_").split("_") if w)]
    names = {*words, *(f"{w}s" for w in words)}
    return [TESTS / name for name in sorted(names) if (TESTS / name).is_dir() and name != "support"]


def selected(changed: list[str]) -> list[str]:
    """The test paths (relative to the root) that the changed files touch."""
    every_test = _test_files(TESTS)
    texts = {path: path.read_text(encoding="utf-8") for path in every_test}
    picked: set[Path] = set()
    for name in changed:
        path = ROOT / name
        parts = Path(name).parts
        if parts[0] == "tests" and path.name.startswith("test_") and path.suffix == ".py":
            picked.add(path)
        elif parts[0] == "tests" and path.name == "conftest.py":
            picked.update(_test_files(path.parent))
        elif parts[:2] == ("tests", "support") and path.suffix == ".py":
            pattern = _imports_of(f"support.{path.stem}")
            picked.update(p for p, text in texts.items() if pattern.search(text))
        elif parts[:2] == ("src", "ownership") and path.suffix == ".py":
            dotted = ".".join(Path(*parts[1:]).with_suffix("").parts).removesuffix(".__init__")
            if path.exists():
                picked.add(path)  # its doctests
            pattern = _imports_of(dotted)
            picked.update(p for p, text in texts.items() if pattern.search(text))
            in_core = parts[2] == "core"  # ownership/core/...: named after concepts, not a tool
            if len(parts) > 3 and not in_core and (TESTS / parts[2]).is_dir():  # a tool's package
                picked.update(_test_files(TESTS / parts[2]))
            for folder in _concept_folders(path.stem) if len(parts) == 3 or in_core else []:
                picked.update(_test_files(folder))
        elif name in BUILD_FILES or parts[0] == "tools" or parts[:2] == ("docs", "_ext"):
            picked.update(_test_files(TESTS / "build"))
        elif parts[0] == "bench":
            picked.update(_test_files(TESTS / "benchmarks"))
    site = TESTS / "site"  # they check the built site: `make site-tests`, after `make html`
    return sorted(str(p.relative_to(ROOT)) for p in picked if p.exists() and site not in p.parents)


if __name__ == "__main__":
    base = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] else base_commit()
    print("\n".join(selected(changed_files(base))))
