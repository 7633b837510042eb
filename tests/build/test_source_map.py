"""The map of the source on ``docs/reference/internals.md`` matches ``src/ownership``.

Every file the map names exists, every module of the engine is named (the tools' packages are
named whole), and no module of the engine imports a tool, as the page says. The engine page of the
explanations names no file itself: it links the map. A file that moves, appears or goes fails
here until the map follows.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "ownership"
MAP_PAGE = ROOT / "docs" / "reference" / "internals.md"
EXPLAIN_PAGE = ROOT / "docs" / "explain" / "engine-internals.md"
TOOLS_PART = "tools, for both engines"
ROW = re.compile(r"^\|\s*(?P<part>[^|]*?)\s*\|\s*`(?P<file>[^`]+)`\s*\|")


def _map() -> dict[str, str]:
    """File (relative to ``src/ownership``, a package ending in ``/``) -> its part, in page order."""
    rows: dict[str, str] = {}
    part = ""
    for line in MAP_PAGE.read_text().splitlines():
        m = ROW.match(line)
        if m:
            part = m["part"] or part
            assert m["file"] not in rows, f"the map lists {m['file']} twice"
            rows[m["file"]] = part
    return rows


def _modules() -> set[str]:
    return {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if p.name != "__main__.py"}


def test_the_map_has_rows() -> None:
    rows = _map()
    assert "core/storage.py" in rows and "core/tensor.py" in rows, rows
    assert any(part == TOOLS_PART for part in rows.values()), rows


def test_every_file_the_map_names_exists() -> None:
    missing = [f for f in _map() if not (SRC / f.rstrip("/")).exists()]
    assert not missing, f"internals.md maps files that src/ownership does not have: {missing}"


def test_every_module_is_on_the_map() -> None:
    rows = _map()
    packages = [f for f in rows if f.endswith("/")]
    assert all(rows[f] == TOOLS_PART for f in packages), "only tools are listed as whole packages"
    unlisted = sorted(
        m for m in _modules() if m not in rows and not any(m.startswith(p) for p in packages)
    )
    assert not unlisted, f"modules of src/ownership missing from internals.md's map: {unlisted}"


def _imported(path: Path) -> set[str]:
    """The ``ownership`` modules a file imports (``from ownership import x`` gives ``ownership.x``)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return {name for name in out if name.startswith("ownership.")}


def test_no_engine_module_imports_a_tool() -> None:
    rows = _map()
    tools = [
        "ownership." + f.removesuffix(".py").rstrip("/").replace("/", ".")
        for f, part in rows.items()
        if part == TOOLS_PART
    ]
    offenders = []
    for f, part in rows.items():
        if part == TOOLS_PART or f == "__init__.py":  # the package offers ownership.audit
            continue
        for name in _imported(SRC / f):
            if any(name == t or name.startswith(t + ".") for t in tools):
                offenders.append(f"{f} imports {name}")
    assert not offenders, offenders


def test_the_explain_page_points_to_the_map() -> None:
    """The engine page names no file of the engine (files move; the map follows them) and links
    the map and the rules instead."""
    page = EXPLAIN_PAGE.read_text()
    named = re.findall(r"`[\w/]+\.py`", page)
    assert not named, f"engine-internals.md names files: {named} (link reference/internals)"
    assert "{doc}`../reference/internals`" in page and "{doc}`../reference/rules`" in page
