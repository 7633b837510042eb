"""The lock, constraints.txt: every package pinned exactly, and the environment is what it says.

`make lock` compiles it (pip-tools) from constraints.in and pyproject.toml's extras; the Makefile,
nox and CI install with ``-c constraints.txt``. A package installed here but missing from the lock,
or at another version, means an install that a fresh clone would not reproduce.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "constraints.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


def canonical(name: str) -> str:
    """A distribution's name as pip compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_lines() -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in LOCK.read_text().splitlines())
    return [line for line in lines if line]


def pins() -> dict[str, str]:
    return {canonical(m[1]): m[2] for line in requirement_lines() if (m := PIN.match(line))}


def test_every_line_of_the_lock_is_an_exact_pin() -> None:
    assert [line for line in requirement_lines() if not PIN.match(line)] == []


def test_the_lock_pins_torch_2_13_0_cpu_and_the_installer() -> None:
    locked = pins()
    assert locked["torch"] in {"2.13.0", "2.13.0+cpu"}
    assert {"pip", "setuptools", "wheel", "numpy", "pytest", "sphinx", "nox"} <= set(locked)
    assert {"pytest-xdist", "execnet"} <= set(locked)  # make pytest runs on every core


def test_every_installed_package_is_the_locked_version() -> None:
    locked = pins()
    installed = {canonical(d.metadata["Name"]): d.version for d in metadata.distributions()}
    installed.pop("ownership")  # the project itself, installed from the work tree
    wrong = {
        name: (version, locked.get(name, "not in the lock"))
        for name, version in sorted(installed.items())
        if locked.get(name) != version
    }
    assert wrong == {}, f"installed vs locked (rm -rf .venv && make venv, or make lock): {wrong}"
