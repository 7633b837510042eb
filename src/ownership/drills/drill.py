"""A drill: a short program, its twin, the question, and what to reveal.

The *twin* is the same program with the hazard taken out: every in-place op on a tracked tensor
made out of place, every ``detach``/``.data`` removed, a loss back-propagated once (no second
pass kept alive by ``retain_graph=True``), and persistent state registered as a buffer. A program whose watched values differ from its twin's computed something silently
wrong (see :mod:`ownership.drills.classify`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Drill"]


@dataclass(frozen=True)
class Drill:
    """One predict-then-reveal drill.

    ``program`` and ``twin`` are Python sources in which ``torch`` names the engine; ``watch``
    holds the expressions whose values (after the program ran) are compared with the twin's and
    revealed in the answer; ``topic`` says what the drill exercises.
    """

    number: int
    topic: str
    program: str
    twin: str
    question: str
    watch: tuple[str, ...]
