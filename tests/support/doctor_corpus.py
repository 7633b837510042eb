"""The doctor's corpus: scripts in ``tests/doctor/scripts/`` that declare, in header comments,
what the doctor must report on them and which engines run them.

Header grammar (comment lines at the top of each script)::

    # expect: CODE line=N [ROLE=N[,N...] ...]     one line per finding
    # expect: nothing                             a clean script
    # engines: torch [ownership]

``line`` is the line the finding points to; each ``ROLE`` lists, in order, the lines of the
finding's related places with that role (``write``, ``saved``, ``backward``, ``step``...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "doctor" / "scripts"


@dataclass(frozen=True)
class Expected:
    """One expected finding."""

    code: str
    line: int
    roles: dict[str, list[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Script:
    """A corpus script and what its header declares."""

    path: Path
    expected: tuple[Expected, ...]
    engines: tuple[str, ...]


def read(path: Path) -> Script:
    """Parse the header of one corpus script."""
    expected: list[Expected] = []
    engines: tuple[str, ...] = ()
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"# expect: (.*)$", line)
        if m and m[1].strip() != "nothing":
            code, *pairs = m[1].split()
            values = {k: [int(n) for n in v.split(",")] for k, v in (p.split("=") for p in pairs)}
            expected.append(Expected(code, values.pop("line")[0], values))
        m = re.match(r"# engines: (.*)$", line)
        if m:
            engines = tuple(m[1].split())
    if not engines:
        raise ValueError(f"{path.name} declares no engines")
    return Script(path, tuple(expected), engines)


def corpus() -> list[Script]:
    """Every script of the corpus, bugs then clean ones, by name."""
    return [read(p) for p in sorted(SCRIPTS.glob("*.py"))]
