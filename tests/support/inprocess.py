"""Run ``python -m MODULE ARGS...`` inside the test's own process, as the interpreter would.

A subprocess costs seconds to import the engine again; a command whose test checks only its
output and exit status runs here instead: ``runpy`` executes the module as ``__main__`` with
``sys.argv``, standard input, output and error replaced for the run, and ``SystemExit`` taken as
the exit status. Any other exception is not caught: the test fails with its traceback. A few tests
still run each command in a real subprocess, proving the ``python -m`` forms themselves work.
"""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import subprocess
import sys


def run_module(
    *command: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m command[0] command[1:]`` here, with ``env`` added to the environment for
    the run; return what a subprocess would have."""
    module, *args = command
    out, err = io.StringIO(), io.StringIO()
    saved_argv, saved_stdin, saved_env = sys.argv, sys.stdin, dict(os.environ)
    sys.argv, sys.stdin = [module, *args], io.StringIO(stdin)
    os.environ.update(env or {})
    status: int | str | None = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            except SystemExit as done:
                status = done.code
            sys.stdout.flush()
    finally:
        sys.argv, sys.stdin = saved_argv, saved_stdin
        os.environ.clear()
        os.environ.update(saved_env)
    if isinstance(status, str):  # sys.exit("message"): the message goes to stderr, status 1
        err.write(status + "\n")
        status = 1
    return subprocess.CompletedProcess(
        [sys.executable, "-m", *command], status or 0, out.getvalue(), err.getvalue()
    )
