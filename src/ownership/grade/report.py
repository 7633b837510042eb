"""What the grader says: a :class:`Report` of :class:`Diagnosis` entries, as text or JSON.

A report passes exactly when it holds no diagnosis. The text form is what a learner reads: each
diagnosis with what to reread and the link to that section of the site; a problem of the
environment (no torch) says what to fix instead, and the report says the file was not graded.
The JSON form (:meth:`Report.to_json`) carries the same fields for scripts (``url``: the link,
or null; ``fix``; ``graded``), and :meth:`Report.from_json` reads it back (the runner uses it to
carry a report out of the sandbox).

>>> r = Report("sgd", "torch", "my_solution.py", ())
>>> print(r.text())
sgd_step in my_solution.py, graded with torch: passed
>>> Report.from_json(r.to_json()) == r
True
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["FUNCTIONS", "Diagnosis", "Report"]

#: The function each exercise grades.
FUNCTIONS = {"collect": "collect_parameters", "sgd": "sgd_step"}
_WIDTH = 88


@dataclass(frozen=True)
class Diagnosis:
    """One problem: its stable ``code``, the sentence, the section to reread, where, the link
    to the section (``url``, None when the place to look is the learner's own file), and for a
    problem of the environment rather than of the learner's code, what to ``fix``."""

    code: str
    message: str
    reread: str
    where: str = ""
    url: str | None = None
    fix: str = ""


@dataclass(frozen=True)
class Report:
    """The grade of one file for one exercise under one engine."""

    exercise: str
    engine: str
    file: str
    diagnoses: tuple[Diagnosis, ...]

    @property
    def passed(self) -> bool:
        """True exactly when there is no diagnosis."""
        return not self.diagnoses

    @property
    def graded(self) -> bool:
        """False when the environment kept the file from being graded (a diagnosis to fix)."""
        return not any(d.fix for d in self.diagnoses)

    @property
    def codes(self) -> list[str]:
        """The diagnoses' codes, in report order."""
        return [d.code for d in self.diagnoses]

    def text(self) -> str:
        """The report as a learner reads it: a verdict line, then one block per diagnosis."""
        head = f"{FUNCTIONS[self.exercise]} in {self.file}, graded with {self.engine}: "
        if self.passed:
            return head + "passed"
        count = len(self.diagnoses)
        lines = [head + f"{count} problem{'s' if count > 1 else ''}"]
        if not self.graded:
            lines = [
                f"{FUNCTIONS[self.exercise]} in {self.file} was not graded with {self.engine}: "
                "a problem of the environment, not of your code"
            ]
        for d in self.diagnoses:
            lines.append("")
            lines += textwrap.wrap(
                f"[{d.code}] {d.message}", _WIDTH, subsequent_indent="    ", break_on_hyphens=False
            )
            if d.where:
                lines += textwrap.wrap(
                    d.where, _WIDTH, initial_indent="    at ", subsequent_indent="       "
                )
            if d.fix:
                lines += textwrap.wrap(
                    d.fix, _WIDTH, initial_indent="    fix: ", subsequent_indent="         "
                )
            if d.reread:
                lines += textwrap.wrap(
                    d.reread, _WIDTH, initial_indent="    reread: ", subsequent_indent=" " * 12
                )
            if d.url:
                lines.append(" " * 12 + d.url)  # whole, so that a terminal can open it
        return "\n".join(lines)

    def to_json(self) -> str:
        """The report as JSON: exercise, engine, file, passed, graded, and the diagnoses'
        fields (``url`` null when there is no section to link)."""
        data: dict[str, Any] = asdict(self)
        data["passed"] = self.passed
        data["graded"] = self.graded
        data["diagnoses"] = [asdict(d) for d in self.diagnoses]
        return json.dumps(data, indent=2)

    @classmethod
    def from_json(cls, text: str) -> Report:
        """The report :meth:`to_json` wrote."""
        data = json.loads(text)
        return cls(
            exercise=data["exercise"],
            engine=data["engine"],
            file=data["file"],
            diagnoses=tuple(Diagnosis(**d) for d in data["diagnoses"]),
        )
