"""The ``ownership`` command: one entry point for the tools, ``--help`` on each, ``--version``.

The console script is installed only with the package, so the command runs here as
``python -m ownership`` (the same ``main``), and the console script's target, named in
``pyproject.toml``, is checked to exist and to be that ``main``. Most cases run the command in this
process (:mod:`support.inprocess`); ``--help`` and the ``python -m`` forms run as subprocesses.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ownership
from ownership.command import COMMANDS, main

from support.inprocess import run_module

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, timeout=300
    )


def test_pyprojects_console_script_is_the_commands_main() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module_name, _, function = scripts["ownership"].partition(":")
    target = getattr(importlib.import_module(module_name), function)
    assert target is main and callable(target)


def test_the_entry_point_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert capsys.readouterr().out == f"ownership {version}\n"
    assert ownership.__version__ == version


def test_help_lists_every_command() -> None:
    done = run("ownership", "--help")  # a real subprocess: `python -m ownership` works
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ownership ")
    for name in ("doctor", "grade", "drills", "audit"):
        assert f"\n  {name} " in done.stdout
    assert set(COMMANDS) == {"doctor", "grade", "drills", "audit"}


def test_version() -> None:
    done = run_module("ownership", "--version")
    assert (done.returncode, done.stdout) == (0, f"ownership {ownership.__version__}\n")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_has_help_under_its_own_name(name: str) -> None:
    done = run_module("ownership", name, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: ownership {name} ")
    assert "exit status" in done.stdout


@pytest.mark.parametrize("name", ["doctor", "grade", "drills"])
def test_the_python_m_forms_keep_working(name: str) -> None:
    done = run(f"ownership.{name}", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m ownership.{name} ")


def test_no_command_and_an_unknown_command_are_usage_errors() -> None:
    bare = run_module("ownership")
    assert bare.returncode == 2 and bare.stderr.startswith("usage: ownership ")
    unknown = run_module("ownership", "teach")
    assert unknown.returncode == 2
    assert "unknown command 'teach'" in unknown.stderr and not unknown.stdout


def test_a_commands_usage_error_exits_2_under_its_name() -> None:
    done = run_module("ownership", "grade", "collect", "no_such_file.py")
    assert done.returncode == 2
    assert "ownership grade: error: no such file" in done.stderr


def test_import_ownership_loads_no_command() -> None:
    code = (
        "import sys, ownership; "
        "print(sorted(m for m in sys.modules if m.startswith(('ownership.command', "
        "'ownership.audit_command', 'ownership.doctor', 'ownership.grade', 'ownership.drills'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
