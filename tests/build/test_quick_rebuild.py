"""The build's shortcuts change nothing the site shows.

- ``docs/_ext/shared_navigation.py`` hands Sphinx each page's table of contents already cut to
  titles: Sphinx's own toctree resolution, asked for titles only, gives the same tree from the
  cut tables as from the whole ones (nested sections, a toctree inside a section, a page on the
  path of the current one, whose table Sphinx copies whole).
- ``docs/_ext/viewcode_freshness.py`` finds a module's file as ``import`` finds it, without
  importing the engine.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

from docutils import nodes
from sphinx import addnodes
from sphinx.environment.adapters.toctree import _resolve_toctree
from sphinx.util.tags import Tags

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "docs" / "_ext"


def _extension(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _item(docname: str, title: str, anchor: str = "", *children: nodes.Node) -> nodes.list_item:
    ref = nodes.reference("", title, internal=True, refuri=docname, anchorname=anchor)
    item = nodes.list_item("", addnodes.compact_paragraph("", "", ref))
    if children:
        item += nodes.bullet_list("", *children)
    return item


def _toctree(parent: str, *entries: str, caption: str | None = None) -> addnodes.toctree:
    node = addnodes.toctree()
    node["parent"] = parent
    node["entries"] = [(None, entry) for entry in entries]
    node["includefiles"] = list(entries)
    node["rawcaption"] = caption or ""
    if caption:
        node["caption"] = caption
    return node


def _site() -> tuple[SimpleNamespace, addnodes.toctree]:
    """Three pages under an index; the guide nests a toctree in one of its sections, and the
    reference has sections three deep (as documented objects are)."""
    objects = [_item("reference", f"obj{i}", f"#obj{i}") for i in range(5)]
    tocs = {
        "index": nodes.bullet_list("", _item("index", "Home")),
        "guide": nodes.bullet_list(
            "",
            _item(
                "guide",
                "Guide",
                "",
                _item("guide", "Part one", "#one"),
                _item("guide", "Part two", "#two", nodes.list_item("", _toctree("guide", "deep"))),
            ),
        ),
        "deep": nodes.bullet_list("", _item("deep", "Deep", "", _item("deep", "A", "#a"))),
        "reference": nodes.bullet_list(
            "",
            _item("reference", "Reference", "", _item("reference", "API", "#api", *objects)),
        ),
    }
    root = _toctree("index", "guide", "reference", caption="The unit")
    env = SimpleNamespace(
        tocs=tocs,
        toctree_includes={"index": ["guide", "reference"], "guide": ["deep"]},
        metadata={name: {} for name in tocs},
        config=SimpleNamespace(include_patterns=["**"], exclude_patterns=[]),
    )
    return env, root


def _render(env: SimpleNamespace, root: addnodes.toctree, docname: str) -> str:
    builder = SimpleNamespace(get_relative_uri=lambda here, there: f"{there}.html")
    tree = _resolve_toctree(
        env,  # type: ignore[arg-type]
        docname,
        builder,  # type: ignore[arg-type]
        root.deepcopy(),
        prune=True,
        maxdepth=-1,
        titles_only=True,
        collapse=False,
        includehidden=True,
        tags=Tags(),
    )
    assert tree is not None
    return tree.pformat()


def test_the_tree_from_cut_tables_is_sphinxs_own() -> None:
    navigation = _extension("shared_navigation")
    env, root = _site()
    cut = {name: navigation.titles_only(toc) for name, toc in env.tocs.items()}
    for docname in ("index", "guide", "deep", "reference"):
        whole = _render(env, root, docname)
        env.tocs, kept = cut, env.tocs
        try:
            assert _render(env, root, docname) == whole
        finally:
            env.tocs = kept
        assert "Deep" in whole and "obj0" not in whole  # the cases are there, and cut


def test_the_cut_table_drops_the_sections_and_keeps_the_toctrees() -> None:
    navigation = _extension("shared_navigation")
    env, _ = _site()
    guide = navigation.titles_only(env.tocs["guide"])
    assert [n["refuri"] for n in guide.findall(nodes.reference)] == ["guide"]
    assert len(list(guide.findall(addnodes.toctree))) == 1
    assert len(list(env.tocs["guide"].findall(nodes.reference))) == 3  # the original is whole


def test_a_module_file_is_found_without_importing_the_engine() -> None:
    program = (
        "import sys; from pathlib import Path; import viewcode_freshness as v\n"
        "found = v.module_file('ownership.optim.sgd')\n"
        "assert not any(m.startswith('ownership') for m in sys.modules), 'imported'\n"
        "import ownership.optim.sgd as m\n"
        "assert found == Path(m.__file__), (found, m.__file__)\n"
        "assert v.module_file('ownership') == Path(sys.modules['ownership'].__file__)\n"
        "assert v.module_file('ownership.no_such_module') is None\n"
    )
    paths = [str(EXT), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
