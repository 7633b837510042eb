"""Each solution of the corpus is graded to exactly the codes its docstring expects.

A corpus file's docstring starts ``Expect: code, code.`` (or ``Expect: passed.``); the file name
starts with the exercise (``collect_`` or ``sgd_``). Every solution is graded under torch and
under ownership (the learner's ``import torch`` resolving to ownership), in this process.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ownership.grade import CATALOGUE, grade_file

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))


def expected(path: Path) -> list[str]:
    """The codes a corpus file's docstring expects (``[]`` for ``passed``)."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    assert doc.startswith("Expect: "), f"{path.name} does not say what it expects"
    codes = [c.strip() for c in doc.removeprefix("Expect: ").split(".")[0].split(",")]
    return [] if codes == ["passed"] else sorted(codes)


@pytest.mark.parametrize("engine", ["torch", "ownership"])
@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_graded_to_exactly_its_codes(path: Path, engine: str) -> None:
    exercise = path.name.split("_")[0]
    report = grade_file(exercise, path, engine)
    assert report.codes == expected(path), report.text()
    assert report.passed == (expected(path) == [])
    for d in report.diagnoses:
        assert d.message == CATALOGUE[d.code].sentence or d.message.startswith(
            CATALOGUE[d.code].sentence
        )


def test_every_code_of_the_table_has_a_wrong_solution_and_combinations_exist() -> None:
    table = {code for code, entry in CATALOGUE.items() if entry.exercise in ("collect", "sgd")}
    table -= {"bad-return", "missing-parameters", "wrong-update"}  # beyond the table
    alone = {tuple(expected(p)) for p in CORPUS}
    assert {(code,) for code in table} <= alone
    assert sum(len(codes) > 1 for codes in alone) >= 8
    styles = [p for p in CORPUS if not expected(p)]
    assert len([p for p in styles if p.name.startswith("collect")]) >= 3
    assert len([p for p in styles if p.name.startswith("sgd")]) >= 3


def test_every_reread_names_a_page_and_section_of_the_guide() -> None:
    """A unit section named by a diagnosis is a real heading of a guide page (backticks aside)."""
    guide = Path(__file__).resolve().parents[2] / "docs" / "guide"
    headings: dict[str, set[str]] = {}
    for page in guide.glob("*.md"):
        lines = page.read_text().replace("`", "").splitlines()
        titles = [line[2:] for line in lines if line.startswith("# ")]
        if titles:
            headings[titles[0]] = {line[3:] for line in lines if line.startswith("## ")}
    named = [e.reread for e in CATALOGUE.values() if e.exercise != "any"]
    for reread in named:
        match = re.fullmatch(r'"(.+)", section "(.+)"', reread)
        assert match, reread
        assert match[2] in headings.get(match[1], set()), reread
