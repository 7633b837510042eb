"""The navigation tree, rendered from titles only, and once per folder for the pages outside it.

Furo puts the whole navigation tree on every page, rendered by Sphinx for that page with
``titles_only=True``: each page's own title and the tables of contents it includes, no
sections. Sphinx still copies every page's whole table of contents before it drops the sections
(on the API reference, hundreds of documented objects, for each page it writes), so this
extension hands that rendering a table of contents already cut to what ``titles_only`` keeps,
cut the way Sphinx cuts it: the HTML is the same, byte for byte.

On a page of the table of contents the tree marks where the reader is; on every other page (the
highlighted source of each module that ``sphinx.ext.viewcode`` writes under ``_modules``, the
general index, the search page) nothing is marked, and the tree differs from one page to the
next only by its links, which are relative to the page's folder. Those pages share one rendering
per folder (and per set of arguments): the same HTML, byte for byte, rendered once instead of
once a page, which saves most of the time the viewcode pages take to write.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

_RENDERED: dict[tuple[str, str], str] = {}  # (folder, arguments) -> the tree's HTML
_TITLES: dict[str, Any] = {}  # "tocs": each page's table of contents, titles only


def titles_only(toc: nodes.bullet_list) -> nodes.bullet_list:
    """A copy of a page's table of contents with what Sphinx's ``titles_only`` keeps of it.

    Sphinx, for each entry of the top level: if it has sub-entries, they are replaced by the
    ``toctree`` nodes among them (or dropped when there is none). This does the same to a copy,
    without copying the sub-entries it drops.
    """
    cut = toc.copy()
    for top in toc.children:
        if len(top) <= 1:
            cut += top.deepcopy()
            continue
        item = top.copy()
        item += top[0].deepcopy()
        if subtrees := list(top.findall(addnodes.toctree)):
            holder = top[1].copy()
            holder += [subtree.deepcopy() for subtree in subtrees]
            item += holder
        item += [child.deepcopy() for child in top.children[2:]]
        cut += item
    return cut


def _titles_only_tocs(env: BuildEnvironment) -> dict[str, nodes.bullet_list]:
    """Every page's table of contents cut to titles; a table with an ``only`` node (which
    Sphinx resolves before it cuts) is kept whole."""
    if "tocs" not in _TITLES:
        _TITLES["tocs"] = {
            docname: toc if any(toc.findall(addnodes.only)) else titles_only(toc)
            for docname, toc in env.tocs.items()
        }
    tocs: dict[str, nodes.bullet_list] = _TITLES["tocs"]
    return tocs


def _from_titles(env: BuildEnvironment, render: Callable[..., str]) -> Callable[..., str]:
    """``render`` (a page's ``toctree`` function) reading the titles-only tables when it is
    asked for titles only."""

    def toctree(**kwargs: Any) -> str:
        if not kwargs.get("titles_only"):
            return render(**kwargs)
        whole, env.tocs = env.tocs, _titles_only_tocs(env)
        try:
            return render(**kwargs)
        finally:
            env.tocs = whole

    return toctree


def _share_tree(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Render the tree from titles only; give a page outside the table of contents the tree
    its folder already rendered."""
    if "toctree" not in context:
        return
    render = _from_titles(app.env, context["toctree"])
    context["toctree"] = render
    if pagename in app.env.all_docs:
        return
    folder = posixpath.dirname(pagename)

    def toctree(**kwargs: Any) -> str:
        key = (folder, repr(sorted(kwargs.items())))
        if key not in _RENDERED:
            _RENDERED[key] = render(**kwargs)
        return _RENDERED[key]

    context["toctree"] = toctree


def _forget(*_: Any) -> None:
    """A new build (or a changed table of contents) renders afresh."""
    _RENDERED.clear()
    _TITLES.clear()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _forget)
    app.connect("env-updated", _forget)  # the read is over: the tables are final
    app.connect("html-page-context", _share_tree, priority=400)  # before the theme's handler
    return {"parallel_read_safe": True, "parallel_write_safe": True}
