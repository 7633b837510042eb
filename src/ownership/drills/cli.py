"""``ownership drills --seed N --count K [--answers | --json | --interactive] [--engine E]``.

Prints ``count`` fresh drills generated from ``seed`` (``count`` is at least 1). In a terminal,
without ``--answers``, each answer waits until you press Enter; with ``--answers`` every answer is
printed under its drill; ``--json`` prints a list of drills with program, question,
classification and answer; ``--interactive`` (``-i``) asks for your prediction of each drill,
reveals it, and scores you (:mod:`ownership.drills.quiz`; it reads standard input, a terminal or
not). Outcomes come from running each drill in ``--engine`` (default ``ownership``).

Exit status: 0; 2 a usage error (such as ``--count 0``); 130 when Ctrl-C stops an interactive
quiz (the score so far is printed).
"""

from __future__ import annotations

import argparse
import json
import sys

from ownership.drills import as_dict, as_text, classify, generate
from ownership.drills.quiz import quiz
from ownership.grade.engines import ENGINES, engine

__all__ = ["main"]


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Predict-then-reveal drills on views, in-place ops, detach, .data, "
        "accumulation, no_grad and parameter/buffer registration.",
        epilog="exit status: 0; 2 a usage error (such as --count 0); 130 when Ctrl-C stops "
        "an interactive quiz.",
    )
    parser.add_argument("--seed", type=int, default=0, help="same seed, same drills")
    parser.add_argument("--count", type=_at_least_one, default=10, help="how many drills (>= 1)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--answers", action="store_true", help="print every answer")
    mode.add_argument("--json", action="store_true", help="print the drills as JSON")
    mode.add_argument(
        "-i",
        "--interactive",
        action="store_true",
        help="one drill at a time: type your prediction, see the answer, get a score",
    )
    parser.add_argument("--engine", choices=ENGINES, default="ownership", help="run them in")
    return parser


def _at_least_one(text: str) -> int:
    """``--count``: a whole number of drills, at least one."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {count})")
    return count


def main(argv: list[str] | None = None, prog: str = "python -m ownership.drills") -> int:
    """Run the command line; return the exit status."""
    args = _parser(prog).parse_args(argv)
    module = engine(args.engine)
    drills = generate(args.seed, args.count)
    if args.interactive:
        try:
            score = quiz(drills, module)
        except KeyboardInterrupt:  # while a drill ran: nothing half-printed is kept
            print("\nStopped (Ctrl-C).")
            return 130
        return 130 if score.interrupted else 0
    if args.json:
        print(json.dumps([as_dict(d, classify(d, module)) for d in drills], indent=2))
        return 0
    interactive = not args.answers and sys.stdin.isatty()
    for drill in drills:
        if args.answers:
            print(as_text(drill, classify(drill, module)), end="\n\n")
        elif interactive:
            print(as_text(drill))
            try:
                input("\nYour prediction (error / silently wrong / correct)? Enter reveals. ")
            except (EOFError, KeyboardInterrupt) as end:  # Ctrl-D or Ctrl-C: stop, no traceback
                print()
                return 130 if isinstance(end, KeyboardInterrupt) else 0
            print(as_text(drill, classify(drill, module)).rsplit("\n\n", 1)[-1], end="\n\n")
        else:
            print(as_text(drill), end="\n\n")
    if not args.answers and not interactive:
        print(
            f"Answers: {prog} --seed {args.seed} --count {args.count} --answers "
            f"(or one at a time: {prog} --seed {args.seed} --count {args.count} -i)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
