"""The sandbox: grade a learner's file in a subprocess with a time limit.

The learner's code never runs in the caller's process: :func:`run_grader` starts a Python running
:func:`ownership.grade.worker.main` in a fresh temporary directory and reads its JSON report back. A file
that runs past ``timeout`` seconds (an endless loop) is stopped and reported as ``timeout``;
a worker that dies without a report (the learner's code killed its own process) is reported
with what it printed last, unless it died of an exception none of whose frames is the learner's
file (the worker could not even start: ``grader-failed``, the environment's problem). Either way the caller gets a :class:`~ownership.grade.report.Report`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from ownership.grade.catalogue import diagnosis
from ownership.grade.report import Report

__all__ = ["DEFAULT_TIMEOUT", "run_grader"]

#: Seconds a grading may take, the engine's start-up included.
DEFAULT_TIMEOUT = 60.0
_ENTRY = "import sys; from ownership.grade.worker import main; sys.exit(main(sys.argv[1:]))"
# the last line of a traceback: an exception's name and message
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception)\b")


def run_grader(
    exercise: str,
    path: Path,
    engine_name: str = "torch",
    *,
    seed: int = 0,
    timeout: float = DEFAULT_TIMEOUT,
) -> Report:
    """The report of grading ``path`` for ``exercise`` in a subprocess stopped after ``timeout``."""
    path = Path(path).resolve()
    package_root = str(Path(__file__).resolve().parents[2])  # the folder holding ownership/
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    with tempfile.TemporaryDirectory(prefix="ownership-grade-") as scratch:
        out = Path(scratch) / "report.json"
        command = [sys.executable, "-c", _ENTRY, exercise, str(path), engine_name, str(seed)]
        command.append(str(out))
        try:
            done = subprocess.run(
                command, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            found = diagnosis("timeout", f"(stopped after {timeout:g} s)")
            return Report(exercise, engine_name, path.name, (found,))
        if out.exists():
            return Report.from_json(out.read_text(encoding="utf-8"))
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        if _EXCEPTION.match(last) and str(path) not in done.stderr:  # not the learner's code
            found = diagnosis("grader-failed", f"({last})")
        else:
            found = diagnosis("load-error", f"The grading process ended without a report: {last}")
        return Report(exercise, engine_name, path.name, (found,))
