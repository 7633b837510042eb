"""``python -m ownership.drills --seed N --count K [--answers] [--json] [--engine E]``.

Prints ``count`` fresh drills generated from ``seed``. Interactively (a terminal, no
``--answers``) each answer waits until you press Enter; with ``--answers`` every answer is
printed under its drill; ``--json`` prints a list of drills with program, question,
classification and answer. Outcomes come from running each drill in ``--engine`` (default
``ownership``).
"""

from __future__ import annotations

import argparse
import json
import sys

from ownership.drills import as_dict, as_text, classify, generate
from ownership.grade.engines import ENGINES, engine

__all__ = ["main"]


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Predict-then-reveal drills on views, in-place ops, detach, .data, "
        "accumulation, no_grad and parameter/buffer registration.",
        epilog="exit status: 0; 2 a usage error.",
    )
    parser.add_argument("--seed", type=int, default=0, help="same seed, same drills")
    parser.add_argument("--count", type=int, default=10, help="how many drills")
    parser.add_argument("--answers", action="store_true", help="print every answer")
    parser.add_argument("--json", action="store_true", help="print the drills as JSON")
    parser.add_argument("--engine", choices=ENGINES, default="ownership", help="run them in")
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m ownership.drills") -> int:
    """Run the command line; return the exit status."""
    args = _parser(prog).parse_args(argv)
    module = engine(args.engine)
    drills = generate(args.seed, args.count)
    if args.json:
        print(json.dumps([as_dict(d, classify(d, module)) for d in drills], indent=2))
        return 0
    interactive = not args.answers and sys.stdin.isatty()
    for drill in drills:
        if args.answers:
            print(as_text(drill, classify(drill, module)), end="\n\n")
        elif interactive:
            print(as_text(drill))
            input("\nYour prediction (error / silently wrong / correct)? Enter reveals. ")
            print(as_text(drill, classify(drill, module)).rsplit("\n\n", 1)[-1], end="\n\n")
        else:
            print(as_text(drill), end="\n\n")
    if not args.answers and not interactive:
        print(
            f"Answers: python -m ownership.drills --seed {args.seed} --count {args.count} --answers"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
