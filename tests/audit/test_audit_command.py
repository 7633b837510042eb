"""``ownership audit FILE.py [NAME]``: the audit table of the modules a file defines.

The file is loaded as a module, not run as a script (its ``__main__`` block does not run); the
command prints :func:`ownership.audit`'s table for each module found, or JSON; ``--strict``
fails on a flag; a file that raises while loading is shown as Python shows it. The cases run the
command in this process (:mod:`support.inprocess`), the last one as a real subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ownership

from support.inprocess import run_module

MODEL = """\
import ownership as torch
from ownership import nn


class Counted(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(2, 1)
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))
        self.seen = torch.zeros(())  # a plain attribute: lost by state_dict


class Sized(nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.linear = nn.Linear(n, 1)


def build() -> Sized:
    return Sized(3)


if __name__ == "__main__":
    raise SystemExit("the training run must not start")
"""


def audit_cli(*args: str, real: bool = False) -> subprocess.CompletedProcess[str]:
    if not real:
        return run_module("ownership", "audit", *args)
    return subprocess.run(
        [sys.executable, "-m", "ownership", "audit", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return path


def test_without_a_name_each_class_that_builds_alone_is_audited(model: Path) -> None:
    done = audit_cli(str(model))
    assert done.returncode == 0, done.stderr
    expected = str(ownership.audit(_counted()))
    assert done.stdout == f"Counted() (Counted)\n{expected}\n"
    assert "training run" not in done.stderr


def _counted() -> object:
    namespace: dict[str, object] = {"__name__": "model"}
    exec(compile(MODEL, "model.py", "exec"), namespace)
    return namespace["Counted"]()  # type: ignore[operator]


def test_a_named_builder_and_json(model: Path) -> None:
    done = audit_cli(str(model), "build", "--json")
    assert done.returncode == 0, done.stderr
    (doc,) = json.loads(done.stdout)
    assert (doc["name"], doc["class"]) == ("build()", "Sized")
    assert [row["name"] for row in doc["rows"]] == ["linear.weight", "linear.bias"]
    assert doc["flags"] == []


def test_strict_fails_on_a_flag(model: Path) -> None:
    assert audit_cli(str(model), "build", "--strict").returncode == 0
    flagged = audit_cli(str(model), "Counted", "--strict")
    assert flagged.returncode == 1
    assert "seen: tensor attribute not registered" in flagged.stdout


def test_a_class_that_needs_arguments_is_a_usage_error(model: Path) -> None:
    done = audit_cli(str(model), "Sized")
    assert done.returncode == 2
    assert "'Sized' needs arguments to build" in done.stderr


def test_a_file_that_raises_while_loading(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import ownership\n\nraise ValueError('broken model file')\n")
    done = audit_cli(str(path), real=True)
    assert done.returncode == 1
    assert "frozen" not in done.stderr and "audit_command" not in done.stderr
    assert done.stderr.startswith(f'Traceback (most recent call last):\n  File "{path}", line 3')
    assert done.stdout.strip() == f"audit: {path} stopped at line 3: nothing was audited"
