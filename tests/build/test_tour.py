"""The tour (``docs/explain/tour.md``): the unit's ten rules read in an hour.

Issue 28's bound: the deciding functions of the ten rules (their ``enforced-by`` entries on
``docs/reference/rules.md``, callees not counted) take at most 400 lines in at most 11 files.
The numbers are recomputed here with the functions the page is built with (``docs/_ext/tour.py``),
so the page and this test cannot disagree.
"""

from __future__ import annotations

import re
from pathlib import Path

from tour import Deciding, measure, totals, unit_rules

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "explain" / "tour.md"
MAX_LINES = 400
MAX_FILES = 11


def _measured() -> dict[str, tuple[Deciding, ...]]:
    return measure(unit_rules())


def _report(measured: dict[str, tuple[Deciding, ...]]) -> str:
    return "; ".join(
        f"{rule}: " + ", ".join(f"{f.qualname} ({f.file}, {f.lines})" for f in functions)
        for rule, functions in measured.items()
    )


def test_the_ten_rules_take_at_most_400_lines_in_at_most_11_files() -> None:
    measured = _measured()
    assert len(measured) == 10, sorted(measured)
    lines, files, _ = totals(f for functions in measured.values() for f in functions)
    assert lines <= MAX_LINES and files <= MAX_FILES, (
        f"{lines} lines in {files} files: {_report(measured)}"
    )


def test_each_function_is_measured_where_it_is_defined() -> None:
    for rule, functions in _measured().items():
        assert functions, f"rule {rule} has no deciding function"
        for f in functions:
            source = (ROOT / "src" / f.file).read_text().splitlines()
            assert f.first >= 1 and f.last <= len(source), f
            assert f.qualname.rpartition(".")[2] in source[f.first - 1 + _decorators(source, f)], f


def _decorators(source: list[str], f: Deciding) -> int:
    """How many decorator lines open the function's source."""
    n = 0
    while source[f.first - 1 + n].lstrip().startswith("@"):
        n += 1
    return n


def test_the_page_stops_at_each_rule_once_and_names_no_file_itself() -> None:
    text = PAGE.read_text()
    stops = re.findall(r"^\.\. tour-stop:: (\S+)$", text, re.MULTILINE)
    assert sorted(stops) == sorted(rule.id for rule in unit_rules()), stops
    assert ".. tour-summary::" in text
    # files and lengths come from the engine when the page is built, never typed on the page
    assert not re.search(r"\w\.py\b|ownership[./]\w", text), "the page names a file or module"
