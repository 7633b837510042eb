"""A finding: one thing the doctor saw go wrong, with a stable code and the lines it points to.

:data:`CODES` is the table of codes (stable: tools may match on them) and what each means.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["CODES", "Finding", "Place"]

#: Every code the doctor reports, with what it means.
CODES: dict[str, str] = {
    "inplace-write": "the version error was raised: a tensor saved for backward was modified "
    "in place",
    "hidden-write": "a saved tensor was changed by a write autograd cannot see (.data, numpy), "
    "so backward silently used the new value",
    "stale-grad": "step() used gradients that include a backward from before the previous "
    "step() (no zeroing between steps)",
    "no-grad-path": "a parameter the optimizer owns got no gradient from a backward that "
    "reached its other parameters (a cut path)",
    "not-optimized": "a parameter received gradients but no optimizer owns it",
    "unregistered-module": "a module holds sub-modules in a plain list, tuple or dict: "
    "parameters() and state_dict() do not see them",
    "state-as-parameter": "a Parameter is written outside the optimizer, like state: it also "
    "takes gradients and updates",
    "checkpoint-alias": "a state_dict() kept aside was changed later by training: its tensors "
    "alias the parameters",
}


@dataclass(frozen=True)
class Place:
    """A line of the user's own code: file, line number, function and the line's text."""

    file: str
    line: int
    function: str = ""
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Finding:
    """One finding. ``place`` is the line it points to; ``related`` lists other lines that
    matter, each with a short role (``("saved", place)``, ``("write", place)``...)."""

    code: str
    place: Place | None
    message: str
    related: tuple[tuple[str, Place], ...] = field(default=())

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown finding code {self.code!r}")

    @property
    def file(self) -> str | None:
        """The file the finding points to (None when no line of the user's code is known)."""
        return self.place.file if self.place else None

    @property
    def line(self) -> int | None:
        """The line the finding points to (None when no line of the user's code is known)."""
        return self.place.line if self.place else None

    def lines(self, role: str) -> list[int]:
        """The line numbers of the related places with this role, in order."""
        return [p.line for r, p in self.related if r == role]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: code, file, line, message, related (role, file, line, text)."""
        return {
            "code": self.code,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "related": [{"role": role, **asdict(place)} for role, place in self.related],
        }
