"""Saved tensors as the doctor sees them, and the two findings about them.

A :class:`SaveRecord` is kept for each tensor an op saved for backward: an alias sharing its
memory and version counter, the version it was saved at, the line that saved it, and every write
to its memory since (the writes that bumped its counter, and the ones autograd cannot see).
:func:`explain_version_error` turns torch's version error into an ``inplace-write`` finding;
:func:`hidden_write` makes the ``hidden-write`` finding.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import Any

from ownership.doctor.findings import Finding, Place

__all__ = ["SaveRecord", "explain_version_error", "hidden_write", "is_version_error"]

_ORDER = itertools.count()
_VERSION_ERROR = re.compile(
    r"modified by an inplace operation: \[(?P<type>[\w.]+) \[(?P<shape>[\d, ]*)\]\]"
    r"(?:, which is output (?P<nr>\d+) of (?P<node>[\w:]+),)?"
    r" is at version (?P<current>\d+); expected version (?P<expected>\d+) instead"
)


class SaveRecord:
    """One saved tensor: ``alias`` shares its memory and version counter."""

    __slots__ = (
        "__weakref__",
        "alias",
        "hidden",
        "node_name",
        "numpy",
        "numpy_writes",
        "order",
        "place",
        "version",
        "writes",
    )

    def __init__(self, alias: Any, version: int, place: Place | None, node_name: str) -> None:
        self.alias = alias
        self.version = version
        self.place = place
        self.node_name = node_name
        self.order = next(_ORDER)
        #: ``(version after the write, line)`` of each write that bumped the counter.
        self.writes: list[tuple[int, Place | None]] = []
        #: ``(line, how, line that made the alias)`` of each write autograd could not see.
        self.hidden: list[tuple[Place | None, str, Place | None]] = []
        #: ``(copy of the value, line of the numpy() call)`` when a numpy alias was taken.
        self.numpy: tuple[Any, Place | None] | None = None
        #: the user lines that changed the values while a numpy alias was out.
        self.numpy_writes: list[Place] = []

    def numpy_changed(self, how: str) -> None:
        """Backward is about to use this tensor, whose numpy alias was taken from a value that
        ``changed``: note a hidden write at each line that changed it (at the line of the
        ``numpy()`` call when none was seen), and stop watching the alias."""
        assert self.numpy is not None
        where = self.numpy[1]
        writes: list[Place | None] = list(_unique(self.numpy_writes))
        for place in writes or [where]:
            self.hidden.append((place, how, where))
        self.numpy, self.numpy_writes = None, []

    def stale(self) -> bool:
        """Whether the saved tensor was modified in place since it was saved."""
        return bool(self.alias._version != self.version)


def is_version_error(exc: BaseException) -> bool:
    """Whether ``exc`` is autograd's version error (torch's wording, either engine)."""
    return isinstance(exc, RuntimeError) and _VERSION_ERROR.search(str(exc)) is not None


def _what(rec: SaveRecord) -> str:
    shape = list(rec.alias.shape)
    return f"a tensor of shape {shape} (saved by {rec.node_name})"


def _unique(places: Iterable[Place | None]) -> list[Place]:
    seen: dict[tuple[str, int], Place] = {}
    for p in places:
        if p is not None:
            seen.setdefault((p.file, p.line), p)
    return list(seen.values())


def _lines(places: list[Place]) -> str:
    nums = [str(p.line) for p in places]
    return ("line " if len(nums) == 1 else "lines ") + ", ".join(nums)


def explain_version_error(
    message: str, candidates: list[SaveRecord], backward: Place | None
) -> Finding | None:
    """The ``inplace-write`` finding for torch's version error ``message``, from the saved
    tensors that were stale when backward started; None when none matches the message."""
    m = _VERSION_ERROR.search(message)
    if m is None:
        return None
    expected, current = int(m["expected"]), int(m["current"])
    shape = [int(s) for s in m["shape"].replace(" ", "").split(",") if s]
    matches = [
        r
        for r in candidates
        if r.version == expected and r.alias._version == current and list(r.alias.shape) == shape
    ]
    if not matches:
        return None
    rec = max(matches, key=lambda r: r.order)
    writes = _unique(
        p for v, p in sorted(rec.writes, key=lambda w: w[0]) if expected < v <= current
    )
    related: list[tuple[str, Place]] = [("write", p) for p in writes]
    if rec.place is not None:
        related.append(("saved", rec.place))
    if backward is not None:
        related.append(("backward", backward))
    saved_at = f"line {rec.place.line}" if rec.place else "an unknown line"
    if writes:
        wrote = f"modified in place at {_lines(writes)}"
    else:
        wrote = "modified in place by code outside your files"
    text = (
        f"backward needed {_what(rec)} as it was at {saved_at}, but it was {wrote} afterwards "
        f"(version {expected} -> {current}). Compute out of place instead (h = h * 2, not "
        "h.mul_(2)), clone() before writing, or move the write after this backward; when the "
        "write is an optimizer step, run the backward first or redo the forward after the step."
    )
    place = writes[0] if writes else rec.place
    return Finding("inplace-write", place, text, tuple(related))


def hidden_write(
    rec: SaveRecord, place: Place | None, how: str, made: Place | None, backward: Place | None
) -> Finding:
    """The ``hidden-write`` finding: ``rec`` was changed at ``place`` through ``how``, an alias
    made at ``made`` (None when it is the write itself, as for ``.data``)."""
    related: list[tuple[str, Place]] = []
    if made is not None and made != place:
        related.append(("alias", made))
    if rec.place is not None:
        related.append(("saved", rec.place))
    if backward is not None:
        related.append(("backward", backward))
    saved_at = f"line {rec.place.line}" if rec.place else "an unknown line"
    where = f"line {place.line}" if place else "code outside your files"
    text = (
        f"{_what(rec)} at {saved_at} was changed at {where} through {how}, which autograd cannot "
        "see: backward used the new value and the gradient is wrong, with no error. Write out of "
        "place (or clone() first) instead of going around the version counter."
    )
    return Finding("hidden-write", place, text, tuple(related))
