"""The doctor sits above the engine: no engine module imports it, and it imports torch lazily."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import ownership

PACKAGE = Path(ownership.__file__).parent


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_engine_module_imports_the_doctor() -> None:
    engine = [p for p in PACKAGE.rglob("*.py") if "doctor" not in p.relative_to(PACKAGE).parts]
    assert len(engine) > 30
    for path in engine:
        assert not any(n.startswith("ownership.doctor") for n in _imports(path)), path


def test_importing_the_doctor_does_not_import_torch() -> None:
    code = "import sys, ownership.doctor, ownership.doctor.runner; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
