"""``ownership grade collect|sgd FILE [--engine torch|ownership] [--json]`` (or ``python -m
ownership.grade``).

Prints the report (text, or JSON with ``--json``). Exit status (:data:`EXIT_STATUS`): 0 passed,
1 problems found in the learner's code, 2 a usage error (such as a file that does not exist),
3 not graded because of the environment (no torch).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ownership.grade.catalogue import DEFAULT_SITE_URL
from ownership.grade.engines import ENGINES
from ownership.grade.runner import DEFAULT_TIMEOUT, run_grader
from ownership.grade.worker import CHECKS

__all__ = ["EXIT_STATUS", "main"]

#: The exit status of the command, as ``--help`` shows it.
EXIT_STATUS = (
    "exit status: 0 passed; 1 problems found in your code; 2 a usage error (a file that does "
    "not exist); 3 not graded: a problem of the environment (no torch: install it, or use "
    "--engine ownership). The links to the guide's sections start at $OWNERSHIP_SITE_URL "
    f"(default {DEFAULT_SITE_URL})."
)


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Grade your solution of a practice exercise: passed, or what is wrong "
        "and which section of the unit to reread.",
        epilog=EXIT_STATUS,
    )
    parser.add_argument("exercise", choices=sorted(CHECKS), help="the exercise to grade")
    parser.add_argument("file", type=Path, help="your Python file")
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="torch",
        help="run your code with PyTorch (default) or with ownership standing in for torch",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated inputs")
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds before giving up"
    )
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m ownership.grade") -> int:
    """Run the command line; return the exit status."""
    parser = _parser(prog)
    args = parser.parse_args(argv)
    if not args.file.is_file():
        parser.error(f"no such file: {args.file}")
    report = run_grader(args.exercise, args.file, args.engine, seed=args.seed, timeout=args.timeout)
    print(report.to_json() if args.json else report.text())
    if not report.graded:
        return 3
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
