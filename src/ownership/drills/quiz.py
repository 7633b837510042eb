"""The interactive drills: one drill at a time, the learner's prediction, the reveal, a score.

:func:`quiz` shows a drill, reads a prediction (``error``, ``silently wrong`` or ``correct``;
``e``, ``s`` or ``c`` will do), reveals the answer, says whether the prediction was right, and
moves on; the score follows the last drill. The end of the input (Ctrl-D), Ctrl-C or ``q`` stops
early, with the score of the drills answered so far.

>>> from ownership.drills import generate
>>> import ownership
>>> answers = iter(["maybe", "c", "q"])
>>> score = quiz(generate(seed=7, count=3), ownership, read=lambda prompt: next(answers),
...              write=lambda text: None)
>>> score.asked, score.answered, score.stopped
(2, 1, True)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType

from ownership.drills.classify import CLASSES, classify
from ownership.drills.drill import Drill
from ownership.drills.render import answer, as_text

__all__ = ["PROMPT", "Score", "parse_prediction", "quiz", "read_line"]

PROMPT = "Your prediction: error, silently wrong or correct? [e/s/c, q to stop] "
_WORDS = {
    "e": "error",
    "error": "error",
    "raises": "error",
    "s": "silently wrong",
    "silent": "silently wrong",
    "silently wrong": "silently wrong",
    "wrong": "silently wrong",
    "c": "correct",
    "correct": "correct",
}


@dataclass
class Score:
    """How a quiz went: drills shown, predictions given, right predictions, whether the
    learner stopped before the last drill, and whether by Ctrl-C."""

    asked: int = 0
    answered: int = 0
    right: int = 0
    stopped: bool = False
    interrupted: bool = False

    def __str__(self) -> str:
        if not self.answered:
            return "Score: no drill answered."
        return f"Score: {self.right}/{self.answered} predicted right."


def parse_prediction(text: str) -> str | None:
    """The classification a typed prediction names (one of ``CLASSES``), ``"quit"`` for ``q``,
    or None when it names none.

    >>> parse_prediction(" S "), parse_prediction("Error"), parse_prediction("q")
    ('silently wrong', 'error', 'quit')
    """
    word = " ".join(text.strip().lower().split())
    if word in ("q", "quit", "stop"):
        return "quit"
    found = _WORDS.get(word)
    assert found is None or found in CLASSES
    return found


def read_line(prompt: str) -> str:
    """``input(prompt)``, and the line echoed when standard input is not a terminal (so that
    a transcript shows what was answered)."""
    line = input(prompt)
    if not sys.stdin.isatty():
        print(line)
    return line


def quiz(
    drills: Sequence[Drill],
    engine: ModuleType,
    read: Callable[[str], str] = read_line,
    write: Callable[[str], None] = print,
) -> Score:
    """Ask each drill in turn (see the module's docstring); the score. ``read`` raises
    ``EOFError`` at the end of the input, ``KeyboardInterrupt`` on Ctrl-C: the quiz stops there,
    like ``q``."""
    score = Score()
    for drill in drills:
        write(as_text(drill) + "\n")
        score.asked += 1
        prediction = None
        while prediction is None:
            try:
                prediction = parse_prediction(read(PROMPT))
            except (EOFError, KeyboardInterrupt) as end:
                prediction = "quit"
                score.interrupted = isinstance(end, KeyboardInterrupt)
                write("")
            if prediction is None:
                write("Answer error, silently wrong or correct (e, s or c); q stops.")
        if prediction == "quit":
            score.stopped = True
            break
        outcome = classify(drill, engine)
        score.answered += 1
        if prediction == outcome.classification:
            score.right += 1
            verdict = "Right."
        else:
            verdict = f"Not quite: you said {prediction}."
        write(f"{verdict} Answer: {answer(drill, outcome)}\n")
    if score.stopped:
        write(f"Stopped after {score.answered} of {len(drills)} drills.")
    write(str(score))
    return score
