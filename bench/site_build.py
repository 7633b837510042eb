"""The site build, timed: from scratch with every page executed, then again with nothing changed.

Both builds use the flags of ``make html`` (read from the Makefile, so the two cannot drift
apart) and write into a temporary folder: the project's own ``_build`` and its execution cache
are left alone, and the first build starts from an empty jupyter-cache, so every page is
executed. Each row gives the wall clock, the CPU seconds of the build and every process it
started (the kernels included), and the load average of the machine: on a shared machine the
wall clock grows with the load, the CPU seconds much less.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRESH_GOAL_S = 60.0  # from scratch, every page executed, on two cores
REBUILD_GOAL_S = 3.0  # nothing changed


def sphinx_flags() -> list[str]:
    """The ``HTMLFLAGS`` of the Makefile (its ``SPHINXFLAGS`` included), without the user's
    ``SPHINXOPTS``."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")

    def variable(name: str) -> list[str]:
        match = re.search(rf"^{name}\s*:=\s*(.*)$", text, re.M)
        if match is None:
            raise RuntimeError(f"the Makefile defines no {name}")
        return match.group(1).split()

    flags: list[str] = []
    for flag in variable("HTMLFLAGS"):
        if flag == "$(SPHINXFLAGS)":
            flags += [f for f in variable("SPHINXFLAGS") if f != "$(SPHINXOPTS)"]
        elif flag != "$(SPHINXOPTS)":
            flags.append(flag)
    return flags


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_build(out: Path, env: Mapping[str, str]) -> tuple[float, float, float]:
    """Build the site into ``out``; return wall seconds, CPU seconds and the load at the end."""
    sphinx = Path(sys.executable).with_name("sphinx-build")
    cmd = [
        str(sphinx),
        "-b",
        "html",
        "-d",
        str(out / "doctrees"),
        *sphinx_flags(),
        "-q",
        "-D",
        f"nb_execution_cache_path={out / 'jupyter_cache'}",
        str(ROOT / "docs"),
        str(out / "html"),
    ]
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, check=False)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-5:])
        raise RuntimeError(f"the site build failed:\n{tail}")
    return wall, cpu, os.getloadavg()[0]


def report(env: Mapping[str, str] | None = None) -> None:
    """Print the two rows, each with its goal; the builds run in ``env`` (default: this one)."""
    with tempfile.TemporaryDirectory(prefix="site-bench-") as tmp:
        for label, goal in (
            ("from scratch", FRESH_GOAL_S),
            ("nothing changed", REBUILD_GOAL_S),
        ):
            try:
                wall, cpu, load = timed_build(Path(tmp), os.environ if env is None else env)
            except Exception as exc:  # reported as a row, the bench goes on
                print(f"  {label:<16} ERROR {type(exc).__name__}: {exc}")
                return
            verdict = "PASS" if wall <= goal else "FAIL"
            print(
                f"  {label:<16} {wall:6.1f} s wall  {cpu:6.1f} s CPU  (load {load:.1f})"
                f"  {verdict} (goal {goal:.0f} s)"
            )


if __name__ == "__main__":
    report()
