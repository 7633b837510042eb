"""``ownership doctor [--json] [--strict] SCRIPT.py [args]`` (or ``python -m ownership.doctor``).

The script runs unchanged; its own output, traceback and exit status are kept. The report
follows on standard output (``--json``: the findings as JSON, and the script's own standard
output goes to standard error so that standard output is JSON only). A script that stopped
before any tensor operation ran (a ``SyntaxError``, an ``import torch`` that fails) is reported
as such: the line where it stopped, and that nothing was checked.

Exit status (:data:`EXIT_STATUS`): the script's own when it is not 0 (an exception: 1); else,
with ``--strict``, 1 when there is a finding; else 0. A usage error (no such script, an unknown
option) exits 2.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from ownership.doctor.report import not_checked, to_json, to_text
from ownership.doctor.runner import diagnose

__all__ = ["EXIT_STATUS", "main"]

#: The exit status of the command, as ``--help`` shows it.
EXIT_STATUS = (
    "exit status: the script's own when it is not 0 (1 when it raised, also before any check); "
    "else 1 under --strict when there is a finding; else 0. 2: a usage error."
)


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run a PyTorch (or ownership) script and name the lines that broke its "
        "gradients.",
        epilog=EXIT_STATUS,
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when there is a finding, even if the script succeeded (for CI)",
    )
    parser.add_argument("script", help="the script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m ownership.doctor") -> int:
    """Run the doctor's command line; return the exit status (see :data:`EXIT_STATUS`)."""
    parser = _parser(prog)
    ns = parser.parse_args(argv)
    if not os.path.isfile(ns.script):
        parser.error(f"no such script: {ns.script}")
    redirect = contextlib.redirect_stdout(sys.stderr) if ns.json else contextlib.nullcontext()
    with redirect:
        result = diagnose(ns.script, ns.args)
    if result.error is not None:
        sys.stderr.write(result.error)
    sys.stderr.flush()
    if ns.json:
        print(
            to_json(
                result.findings,
                result.script,
                result.engines,
                result.exit_status,
                checked=result.checked,
                stopped_at=result.stopped_at,
            )
        )
    elif not result.checked and result.exit_status != 0:
        print("\n" + not_checked(result.script, result.stopped_at, os.getcwd()))
    else:
        print(("\n" if result.error else "") + to_text(result.findings, os.getcwd()))
    if result.exit_status != 0:
        return result.exit_status
    return 1 if ns.strict and result.findings else 0


if __name__ == "__main__":
    sys.exit(main())
