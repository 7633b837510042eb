"""Words for a drill: the prompt, the reveal (:func:`answer`), text and JSON forms."""

from __future__ import annotations

from typing import Any

from ownership.drills.classify import Outcome
from ownership.drills.drill import Drill
from ownership.drills.templates import OWNERSHIP_FACTS

__all__ = ["answer", "as_dict", "as_text"]

_FACT_WORDS = dict(zip(OWNERSHIP_FACTS, ("The optimizer owns", "state_dict() saves"), strict=True))


def _show(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    return "None" if value is None else str(value)


def answer(drill: Drill, outcome: Outcome) -> str:
    """The reveal: the classification, then the error or the values (and what was meant)."""
    if outcome.classification == "error":
        return f"error: it raises\n    {outcome.message}"
    lines = []
    for e in drill.watch:
        got, meant = _show(outcome.values[e]), _show(outcome.meant[e])
        if got == meant or outcome.classification == "correct":
            lines.append(f"    {e} = {got}")
        else:
            lines.append(f"    {e} = {got}   (without the hazard: {meant})")
    for e, value in outcome.facts.items():
        lines.append(f"    {_FACT_WORDS[e]}: {_show(value) or 'nothing'}")
    owned, saved = (outcome.facts.get(e, []) for e in OWNERSHIP_FACTS)
    if outcome.facts and "mean" in owned:
        lines.append("    (running state registered as a Parameter: the optimizer steps it)")
    elif outcome.facts and "mean" not in saved:
        lines.append("    (mean is a plain attribute: state_dict() neither saves nor restores it)")
    if outcome.classification == "correct":
        head = "correct: it runs, and gives the same result as without the hazard"
    else:
        head = "silently wrong: it runs without an error, but the result differs"
    return "\n".join([head, *lines])


def as_text(drill: Drill, outcome: Outcome | None = None) -> str:
    """The drill as printed: number, program, question, and the answer if ``outcome`` is given."""
    program = "\n".join("    " + line if line else "" for line in drill.program.splitlines())
    parts = [f"Drill {drill.number}", program, "", drill.question]
    if outcome is not None:
        parts += ["", "Answer: " + answer(drill, outcome)]
    return "\n".join(parts)


def as_dict(drill: Drill, outcome: Outcome) -> dict[str, Any]:
    """The drill for ``--json``: program, question, classification and answer (and the twin)."""
    return {
        "number": drill.number,
        "topic": drill.topic,
        "program": drill.program,
        "question": drill.question,
        "classification": outcome.classification,
        "message": outcome.message,
        "values": outcome.values,
        "answer": answer(drill, outcome),
        "twin": drill.twin,
    }
