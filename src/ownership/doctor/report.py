"""The doctor's report: findings as text for a person, or as JSON for a tool.

JSON schema (``SCHEMA_VERSION`` 1)::

    {"version": 1, "script": str, "engines": [str], "exit_status": int,
     "checked": bool, "stopped_at": {"file": str, "line": int} | null,
     "findings": [{"code": str, "file": str | null, "line": int | null, "message": str,
                   "related": [{"role": str, "file": str, "line": int,
                                "function": str, "text": str}]}]}
"""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Sequence

from ownership.doctor.findings import Finding, Place

__all__ = ["SCHEMA_VERSION", "not_checked", "to_json", "to_text"]

SCHEMA_VERSION = 1


def _name(file: str, base: str) -> str:
    name = os.path.relpath(file, base) if base else file
    return file if name.startswith("..") else name


def _where(place: Place | None, base: str) -> str:
    if place is None:
        return "(no line of your code)"
    return f"{_name(place.file, base)}:{place.line}"


def to_text(findings: Sequence[Finding], base: str = "") -> str:
    """One paragraph per finding: ``file:line: code``, the wrapped message, then the related
    lines with their roles and source text; ``doctor: no findings`` when there is none.
    Paths are shown relative to ``base`` when it is given."""
    if not findings:
        return "doctor: no findings"
    blocks = [f"doctor: {len(findings)} finding{'s' if len(findings) != 1 else ''}"]
    for f in findings:
        lines = [f"{_where(f.place, base)}: {f.code}"]
        if f.place is not None and f.place.text:
            lines.append(f"    {f.place.text}")
        lines += textwrap.wrap(f.message, 96, initial_indent="  ", subsequent_indent="  ")
        for role, place in f.related:
            text = f"  {place.text}" if place.text else ""
            lines.append(f"  - {role}: {_where(place, base)}{text}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def not_checked(script: str, stopped_at: Place | None, base: str = "") -> str:
    """What the doctor says of a script that stopped before any tensor operation ran.

    >>> print(not_checked("train.py", Place("train.py", 3)))
    doctor: train.py stopped at line 3, before any tensor operation ran: nothing was checked
    """
    name = _name(script, base)
    where = f" at line {stopped_at.line}" if stopped_at is not None else ""
    if stopped_at is not None and os.path.realpath(stopped_at.file) != os.path.realpath(script):
        where = f" at {_where(stopped_at, base)}"
    return f"doctor: {name} stopped{where}, before any tensor operation ran: nothing was checked"


def to_json(
    findings: Sequence[Finding],
    script: str,
    engines: Sequence[str],
    exit_status: int,
    *,
    checked: bool = True,
    stopped_at: Place | None = None,
) -> str:
    """The findings as a JSON document (see the module's schema): ``checked`` is False when
    no tensor operation ran; ``stopped_at``, the line where an exception (or a non-zero
    ``sys.exit``) stopped the script."""
    stop = None if stopped_at is None else {"file": stopped_at.file, "line": stopped_at.line}
    return json.dumps(
        {
            "version": SCHEMA_VERSION,
            "script": script,
            "engines": list(engines),
            "exit_status": exit_status,
            "checked": checked,
            "stopped_at": stop,
            "findings": [f.to_json() for f in findings],
        },
        indent=2,
    )
