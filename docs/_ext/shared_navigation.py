"""The navigation tree rendered once per folder for the pages outside the table of contents.

Furo puts the whole navigation tree on every page, rendered by Sphinx for that page. On a page of
the table of contents the tree marks where the reader is; on every other page (the highlighted
source of each module that ``sphinx.ext.viewcode`` writes under ``_modules``, the general index,
the search page) nothing is marked, and the tree differs from one page to the next only by its
links, which are relative to the page's folder. Those pages share one rendering per folder (and
per set of arguments): the same HTML, byte for byte, rendered once instead of once a page, which
saves most of the time the viewcode pages take to write.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from sphinx.application import Sphinx

_RENDERED: dict[tuple[str, str], str] = {}  # (folder, arguments) -> the tree's HTML


def _share_tree(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Give a page outside the table of contents the tree its folder already rendered."""
    if pagename in app.env.all_docs or "toctree" not in context:
        return
    render: Callable[..., str] = context["toctree"]
    folder = posixpath.dirname(pagename)

    def toctree(**kwargs: Any) -> str:
        key = (folder, repr(sorted(kwargs.items())))
        if key not in _RENDERED:
            _RENDERED[key] = render(**kwargs)
        return _RENDERED[key]

    context["toctree"] = toctree


def _forget(app: Sphinx) -> None:
    _RENDERED.clear()  # a new build (or a changed table of contents) renders afresh


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _forget)
    app.connect("html-page-context", _share_tree, priority=400)  # before the theme's handler
    return {"parallel_read_safe": True, "parallel_write_safe": True}
