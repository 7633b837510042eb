"""Run a drill and classify what happened: an error, a silently wrong result, or correct.

- **error**: running the program raised (the message is kept, PyTorch's wording).
- **silently wrong**: it ran, but a watched value differs from the twin's (the same program
  with the hazard taken out, see :class:`~ownership.drills.drill.Drill`); ``None`` differs
  from any tensor. For a registration drill, what the optimizer owns and what ``state_dict()``
  saves are compared too: running state kept as a plain attribute computes the same numbers as
  a buffer, but is neither saved nor restored, which the unit counts as a hazard.
- **correct**: it ran and every watched value equals the twin's.

Values are compared with ``numpy.allclose`` (float32 arithmetic, rtol 1e-5, atol 1e-6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ownership.drills.drill import Drill
from ownership.drills.templates import OWNERSHIP_FACTS

__all__ = ["CLASSES", "Outcome", "classify"]

#: The three classifications.
CLASSES = ("error", "silently wrong", "correct")


@dataclass(frozen=True)
class Outcome:
    """What running a drill gave: its class, the error message, and the values to reveal.

    ``values`` and ``meant`` map each compared expression (the watched ones, and a registration
    drill's ownership facts) to its value (a nested list of floats, a list of names, or ``None``)
    after the program and after its twin; ``facts`` holds the program's ownership facts alone
    (parameter names, ``state_dict`` keys).
    """

    classification: str
    message: str
    values: dict[str, Any]
    meant: dict[str, Any]
    facts: dict[str, Any]


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (list, str, int, float)):
        return value
    return np.round(np.asarray(value.detach().numpy(), dtype=np.float64), 4).tolist()


def _run(source: str, engine: Any, expressions: tuple[str, ...]) -> dict[str, Any]:
    namespace: dict[str, Any] = {"torch": engine}
    exec(compile(source, "<drill>", "exec"), namespace)
    return {e: _plain(eval(e, namespace)) for e in expressions}


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if any(isinstance(v, list) and any(isinstance(i, str) for i in v) for v in (a, b)):
        return bool(a == b)  # names: what the optimizer owns, what state_dict() saves
    left, right = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return left.shape == right.shape and bool(np.allclose(left, right, rtol=1e-5, atol=1e-6))


def classify(drill: Drill, engine: Any) -> Outcome:
    """Run ``drill`` (and, if it ran, its twin) with ``engine`` standing for ``torch``."""
    facts = OWNERSHIP_FACTS if drill.topic.startswith("registration") else ()
    compared = drill.watch + facts
    try:
        got = _run(drill.program, engine, compared)
    except Exception as error:  # the drill's own error is its outcome
        return Outcome("error", f"{type(error).__name__}: {error}", {}, {}, {})
    meant = _run(drill.twin, engine, compared)
    wrong = not all(_same(got[e], meant[e]) for e in compared)
    shown = {e: got[e] for e in facts}
    return Outcome("silently wrong" if wrong else "correct", "", got, meant, shown)
