"""The site for every reader: what assistive technology needs that the theme leaves out.

- Sphinx marks a table of contents' caption ``role="heading"`` but gives it no level; a heading
  role without ``aria-level`` is invalid (axe-core's ``aria-required-attr``). Every caption, in
  the navigation tree and in a page's body, is given ``aria-level="2"``.
- A region that scrolls (a long line of code or output, a wide table) must be reachable by the
  keyboard, or a reader without a mouse cannot scroll it (``scrollable-region-focusable``):
  ``accessibility.js`` makes each region that overflows focusable (``tabindex="0"``), on load and
  whenever the window is resized.

- A stepper (``ownership.pictures.stepper``, on the core pages) is driven by ``stepper.js``: named
  buttons and the ←/→ keys, each step announced through an ``aria-live`` status line.

- A checklist (the focus and completion pages: paragraphs that start with "☐") becomes real
  checkboxes, named by their bold first sentence, whose ticks this browser keeps
  (``checklists.js``, ``localStorage``).

``tests/site/test_browser.py`` runs axe-core on every page and fails on a serious or critical
violation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sphinx.application import Sphinx

CAPTION = '<p class="caption" role="heading">'
LEVELLED = '<p class="caption" role="heading" aria-level="2">'


def with_levels(html: str) -> str:
    """``html`` with a level on every table-of-contents caption.

    >>> with_levels('<p class="caption" role="heading"><span>The unit</span></p>')
    '<p class="caption" role="heading" aria-level="2"><span>The unit</span></p>'
    """
    return html.replace(CAPTION, LEVELLED)


def _levelled(render: Callable[..., str]) -> Callable[..., str]:
    def toctree(**kwargs: Any) -> str:
        return with_levels(render(**kwargs))

    return toctree


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if "toctree" in context:
        context["toctree"] = _levelled(context["toctree"])
    if "body" in context:
        context["body"] = with_levels(context["body"])


def setup(app: Sphinx) -> dict[str, Any]:
    # after shared_navigation (400) wraps the tree's rendering, before the theme (500) reads it
    app.connect("html-page-context", _page_context, priority=450)
    app.add_js_file("accessibility.js", loading_method="defer")
    app.add_js_file("checklists.js", loading_method="defer")
    app.add_js_file("stepper.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
