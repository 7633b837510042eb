"""``python -m ownership.doctor [--json] SCRIPT.py [args]``: run a script, then report.

The script runs unchanged; its own output, traceback and exit status are kept. The report
follows on standard output (``--json``: the findings as JSON, and the script's own standard
output goes to standard error so that standard output is JSON only).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from ownership.doctor.report import to_json, to_text
from ownership.doctor.runner import diagnose


def main(argv: list[str] | None = None) -> int:
    """Run the doctor's command line; returns the script's exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m ownership.doctor",
        description="Run a PyTorch (or ownership) script and name the lines that broke its "
        "gradients.",
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument("script", help="the script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
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
        print(to_json(result.findings, result.script, result.engines, result.exit_status))
    else:
        print(("\n" if result.error else "") + to_text(result.findings, os.getcwd()))
    return result.exit_status


if __name__ == "__main__":
    sys.exit(main())
