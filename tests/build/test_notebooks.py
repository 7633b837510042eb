"""The notebook offered on each guide page runs with plain PyTorch.

``docs/_ext/downloads.py`` makes it from the page's source. The proof machinery and the pictures
(hidden cells) are left out, so no cell needs the ownership engine; one notebook is executed here
to show it runs, and only the cells that the page says raise, raise.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide"


def _downloads() -> ModuleType:
    spec = importlib.util.spec_from_file_location("downloads", ROOT / "docs/_ext/downloads.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The practice page checks your solutions with the engine as well; its notebook says that it needs
# the ownership wheel (the link on the page says so too).
NEEDS_THE_ENGINE = {"practice"}


def _pages() -> list[Path]:
    return sorted(
        p
        for p in GUIDE.glob("*.md")
        if "file_format: mystnb" in p.read_text()[:300] and p.stem not in NEEDS_THE_ENGINE
    )


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.stem)
def test_no_cell_needs_the_engine(page: Path) -> None:
    notebook = _downloads().notebook_for(page.read_text())
    for cell in notebook.cells:
        if cell.cell_type == "code":
            for needle in ("ownership", "parity", "side_by_side"):
                assert needle not in cell.source, f"{page.name}: a cell uses {needle!r}"


def test_a_notebook_runs_with_plain_torch() -> None:
    nbclient = pytest.importorskip("nbclient")
    notebook = _downloads().notebook_for((GUIDE / "study-2-detach-and-accumulation.md").read_text())
    nbclient.NotebookClient(notebook, timeout=120, allow_errors=True).execute()
    raised = [
        "raises-exception" in cell.metadata.get("tags", [])
        for cell in notebook.cells
        if cell.cell_type == "code"
        and any(o.get("output_type") == "error" for o in cell.get("outputs", []))
    ]
    expected = sum(
        "raises-exception" in c.metadata.get("tags", [])
        for c in notebook.cells
        if c.cell_type == "code"
    )
    assert raised == [True] * expected, "a cell raised that should not, or one did not raise"
