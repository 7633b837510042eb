"""Page-specific expectations of the browser test, as data: add a page here, not code.

Every page of the built site is opened in any case (no console error, no request leaving
127.0.0.1; math typeset wherever the page has math; every dropdown opens). An entry here adds
checks for one page, keyed by its URL relative to the site root.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Expect:
    """What one page must show once the browser has rendered it."""

    math: bool = False  # the page must have typeset math (mjx-container elements)
    min_dropdowns: int = 0  # at least this many sphinx-design dropdowns, each opening on click
    texts: tuple[str, ...] = ()  # visible texts the rendered page must contain
    selectors: tuple[str, ...] = ()  # CSS selectors that must match a visible element


PAGES: dict[str, Expect] = {
    "index.html": Expect(texts=("ownership",)),
    "guide/first-look.html": Expect(math=True, texts=("version counter",)),
    "guide/overview.html": Expect(texts=("You can now",)),
    "guide/study-1-version-counter.html": Expect(texts=("version counter", "Sigmoid")),
    "guide/study-2-detach-and-accumulation.html": Expect(math=True, texts=("detach",)),
    "guide/study-3-parameters-and-buffers.html": Expect(texts=("register_buffer",)),
    "guide/reproduce.html": Expect(min_dropdowns=3),
    "guide/self-test.html": Expect(min_dropdowns=4),
    "guide/completion.html": Expect(min_dropdowns=12),
    "guide/traps.html": Expect(texts=(".data",)),
    "related/gradient-checks.html": Expect(math=True, selectors=("img",)),
    "related/training-signatures.html": Expect(selectors=("img",)),
    "related/containers-and-hooks.html": Expect(min_dropdowns=2, texts=("ModuleList",)),
    "related/inference-mode.html": Expect(min_dropdowns=2, texts=("inference_mode",)),
}

# Searches run on search.html: each query must find at least one result.
SEARCHES: tuple[str, ...] = ("version counter",)

# Screenshots saved to _build/screenshots/ for review: file name -> candidate pages (the first
# page the site has is used).
SCREENSHOTS: dict[str, tuple[str, ...]] = {
    "overview.png": ("guide/overview.html", "index.html"),
    "study.png": ("guide/study-1-version-counter.html", "guide/first-look.html"),
}
