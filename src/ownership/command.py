"""The ``ownership`` command: one entry point for the learner's tools.

.. code-block:: text

    ownership doctor SCRIPT.py [args]    (the same as python -m ownership.doctor)
    ownership grade collect|sgd FILE.py  (python -m ownership.grade)
    ownership drills --seed N --count K  (python -m ownership.drills)
    ownership audit FILE.py [NAME]       (the audit table of a module the file defines)
    ownership --version | --help;  ownership COMMAND --help

The dispatcher only names the tools: each subcommand's module is imported when it is asked for,
and nothing in the engine imports this module (``import ownership`` never loads it).
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata

__all__ = ["COMMANDS", "main"]

#: Each subcommand: the module whose ``main(argv, prog)`` runs it, and what it does.
COMMANDS: dict[str, tuple[str, str]] = {
    "doctor": ("ownership.doctor.cli", "run a script and name the lines that broke its gradients"),
    "grade": ("ownership.grade.cli", "grade your solution of a practice exercise"),
    "drills": ("ownership.drills.cli", "predict-then-reveal drills, as many as you like"),
    "audit": ("ownership.audit_command", "who may mutate each tensor a module holds"),
}


def _usage() -> str:
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items())
    return (
        "usage: ownership [--version] [--help] COMMAND [ARGS]\n\n"
        "The learner's tools of the unit, for PyTorch and for ownership.\n\n"
        f"commands:\n{rows}\n\n"
        "`ownership COMMAND --help` tells more; `python -m ownership.COMMAND` is the same command\n"
        "(except audit). Exit status: the command's own (2: a usage error)."
    )


def main(argv: list[str] | None = None) -> int:
    """Run ``ownership COMMAND ARGS``; return the exit status (the command's own)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        print(_usage(), file=sys.stderr)
        return 2
    if args[0] in ("-h", "--help"):
        print(_usage())
        return 0
    if args[0] == "--version":
        print(f"ownership {metadata.version('ownership')}")  # the installed distribution's
        return 0
    if args[0] not in COMMANDS:
        print(_usage().split("\n\n")[0], file=sys.stderr)
        print(
            f"ownership: error: unknown command {args[0]!r} (choose from {', '.join(COMMANDS)})",
            file=sys.stderr,
        )
        return 2
    module = importlib.import_module(COMMANDS[args[0]][0])
    status: int = module.main(args[1:], prog=f"ownership {args[0]}")
    return status
