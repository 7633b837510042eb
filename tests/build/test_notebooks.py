"""Every page's notebook reads well in Jupyter and runs top to bottom, on both engines.

``docs/_ext/downloads.py`` makes a notebook from each page of the guide, the related topics and the
recipes that has code. The proof machinery and the pictures (hidden cells) are left out, so no
notebook of the unit needs the ownership engine (but the practice page's, which says so). Each
notebook is run cell by cell, as "Run All" runs it, with plain PyTorch and (unless it is a page
about the engine, which imports both) with every ``import torch`` resolved to ``ownership``:
exactly the cells tagged ``raises-exception`` raise. One notebook also
runs in a real Jupyter kernel. MyST's directives are gone from the Markdown: an answer is folded
in a ``<details>``, an admonition is a blockquote, an included file is its code (a doctor's
corpus script, as the page shows it).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import downloads
import learner_scripts
import nbformat
import parity
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# The practice page checks your solutions with the engine as well; its notebook says that it needs
# the ownership wheel (the link on the page says so too).
NEEDS_THE_ENGINE = {"practice"}


def _notebook(page: Path) -> nbformat.NotebookNode:
    return downloads.notebook_for(page.read_text(encoding="utf-8"), folder=page.parent)


def _pages() -> list[Path]:
    folders = [DOCS / f.rstrip("/") for f in downloads.NOTEBOOK_FOLDERS]
    return sorted(
        p for folder in folders for p in folder.glob("*.md") if downloads._is_notebook_page(p)
    )


PAGES = [p for p in _pages() if downloads._has_code(_notebook(p))]
_IDS = [f"{p.parent.name}/{p.stem}" for p in PAGES]


def test_every_page_with_code_has_a_notebook() -> None:
    names = {f"{p.parent.name}/{p.stem}" for p in PAGES}
    assert {"guide/study-1-version-counter", "related/inference-mode"} <= names
    assert any(n.startswith("recipes/") for n in names)
    assert len({p.stem for p in PAGES}) == len(PAGES), "two pages would share a notebook's name"


GUIDE_PAGES = [p for p in PAGES if p.parent.name == "guide" and p.stem not in NEEDS_THE_ENGINE]


@pytest.mark.parametrize("page", GUIDE_PAGES, ids=lambda p: p.stem)
def test_no_cell_of_the_unit_needs_the_engine(page: Path) -> None:
    """The unit's notebooks run with PyTorch alone (the optional pages about the engine and its
    tools import it, and their links say so)."""
    for cell in _notebook(page).cells:
        if cell.cell_type == "code":
            for needle in ("ownership", "parity", "side_by_side"):
                assert needle not in cell.source, f"{page.name}: a cell uses {needle!r}"


_DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{[\w-]+\}", re.M)


@pytest.mark.parametrize("page", PAGES, ids=_IDS)
def test_the_markdown_has_no_myst_directive(page: Path) -> None:
    for cell in _notebook(page).cells:
        if cell.cell_type == "markdown":
            found = _DIRECTIVE.search(cell.source)
            assert found is None, f"{page.name}: {found and found.group(0)} left in the Markdown"


def test_answers_fold_admonitions_quote_and_includes_resolve() -> None:
    self_test = _notebook(DOCS / "guide" / "self-test.md")
    text = "\n".join(c.source for c in self_test.cells if c.cell_type == "markdown")
    assert "<details><summary>Answer</summary>" in text and "> **Key takeaways**" in text
    answers = [c for c in self_test.cells if c.metadata.get("jupyter", {}).get("source_hidden")]
    assert answers, "the answers' doctest cells are not folded"
    assert any("raises-exception" in c.metadata.get("tags", []) for c in answers)
    practice = _notebook(DOCS / "guide" / "practice.md")
    text = "\n".join(c.source for c in practice.cells if c.cell_type == "markdown")
    assert "def collect_parameters(module" in text and "def sgd_step(" in text
    recipe = _notebook(DOCS / "recipes" / "find-the-line.md")
    text = "\n".join(c.source for c in recipe.cells if c.cell_type == "markdown")
    assert f"```python\n{learner_scripts.learner_copy('sigmoid_mul.py')}```" in text
    assert "DOCTOR_ENGINE" not in text and "# expect:" not in text


def run_cells(notebook: nbformat.NotebookNode, engine: str) -> list[str]:
    """Run the code cells in order, as "Run All" would; what went otherwise than tagged."""
    namespace: dict[str, Any] = parity._namespace(as_ownership=engine == "ownership")
    problems = []
    for number, cell in enumerate(c for c in notebook.cells if c.cell_type == "code"):
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        try:
            exec(compile(cell.source, f"<cell {number}>", "exec"), namespace)
        except Exception as error:
            if not tagged:
                problems.append(f"cell {number} raised {type(error).__name__}: {error}")
        else:
            if tagged:
                problems.append(f"cell {number} is tagged raises-exception but ran")
    return problems


@pytest.mark.parametrize("engine", ["torch", "ownership"])
@pytest.mark.parametrize("page", PAGES, ids=_IDS)
def test_the_notebook_runs_top_to_bottom(
    page: Path, engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = _notebook(page)
    if engine == "ownership" and downloads._needs_ownership(notebook):
        pytest.skip("a page about the engine imports both engines itself: it runs once, as written")
    for data in page.parent.glob(f"*{downloads.NOTEBOOK_DATA}"):  # as the zip has it beside
        shutil.copy2(data, tmp_path / data.name)
    monkeypatch.chdir(tmp_path)  # a notebook that writes a file writes it here
    monkeypatch.setenv("MPLBACKEND", "Agg")
    problems = run_cells(notebook, engine)
    assert not problems, f"{page.name} under {engine}:\n" + "\n".join(problems)


def test_run_cells_finds_a_cell_that_raises_untagged() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("1 / 0"), nbformat.v4.new_code_cell("x = 1")]
    notebook.cells[1].metadata["tags"] = ["raises-exception"]
    assert len(run_cells(notebook, "torch")) == 2


def test_a_notebook_runs_in_a_jupyter_kernel() -> None:
    nbclient = pytest.importorskip("nbclient")
    notebook = _notebook(DOCS / "guide" / "self-test.md")
    nbclient.NotebookClient(notebook, timeout=120, allow_errors=True).execute()
    code = [c for c in notebook.cells if c.cell_type == "code"]
    raised = [any(o.get("output_type") == "error" for o in c.get("outputs", [])) for c in code]
    tagged = ["raises-exception" in c.metadata.get("tags", []) for c in code]
    assert raised == tagged, "a cell raised that should not, or one did not raise"
