"""The built site as data: every HTML page of ``_build/html`` with its title and visible text.

Used by the checks of the built site (``test_built_site.py``, ``test_browser.py``) and by the
structure checks of the guide's pages. The site folder is ``_build/html`` at the repository root,
or the folder named by the ``OWNERSHIP_SITE`` environment variable.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP_REASON = (
    "no built site in {path}: run `make html` first (`make test` builds it, then checks it)"
)


def site_dir() -> Path:
    """Where the built site is (it may not exist yet)."""
    return Path(os.environ.get("OWNERSHIP_SITE", ROOT / "_build" / "html")).resolve()


def site_exists() -> bool:
    """Whether a built site is there to check."""
    return (site_dir() / "index.html").is_file()


@dataclass
class Page:
    """One HTML page of the built site."""

    path: Path  # absolute path of the file
    url: str  # path relative to the site root, with "/" (e.g. "guide/traps.html")
    html: str  # the file's text
    title: str  # the <title> text
    h1: str  # the text of the first <h1>, without the permalink sign
    text: str  # visible text of the page (script and style left out)
    tags: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # every start tag

    def has_class(self, tag: str, cls: str) -> bool:
        """Whether the page has a ``tag`` element with class ``cls``."""
        return any(t == tag and cls in a.get("class", "").split() for t, a in self.tags)

    @property
    def has_math(self) -> bool:
        """Whether the page has math for MathJax to typeset (Sphinx writes it in ``.math``)."""
        return any(
            t in ("span", "div") and "math" in a.get("class", "").split() for t, a in self.tags
        )

    @property
    def dropdowns(self) -> int:
        """How many sphinx-design dropdowns (``<details class="sd-dropdown">``) the page has."""
        return sum(
            1 for t, a in self.tags if t == "details" and "sd-dropdown" in a.get("class", "")
        )


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.stack: list[str] = []
        self.title: list[str] = []
        self.h1: list[str] = []
        self.text: list[str] = []
        self.h1_done = False
        self.in_headerlink = False  # the permalink sign after a heading is not its text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "a" and "headerlink" in (dict(attrs).get("class") or "").split():
            self.in_headerlink = True
        if tag not in ("meta", "link", "img", "br", "hr", "input", "source", "wbr"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self.in_headerlink = False
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass
        if tag == "h1" and self.h1:
            self.h1_done = True

    def handle_data(self, data: str) -> None:
        if "title" in self.stack and "svg" not in self.stack:
            self.title.append(data)
        if self.in_headerlink or any(t in self.stack for t in ("script", "style", "head")):
            return
        if "h1" in self.stack and not self.h1_done:
            self.h1.append(data)
        self.text.append(data)


def read_page(path: Path, root: Path) -> Page:
    """Parse one HTML file of the site rooted at ``root``."""
    html = path.read_text(encoding="utf-8")
    reader = _Reader()
    reader.feed(html)
    h1 = "".join(reader.h1)
    return Page(
        path=path,
        url=path.relative_to(root).as_posix(),
        html=html,
        title=" ".join("".join(reader.title).split()),
        h1=" ".join(h1.split()),
        text=" ".join(" ".join(reader.text).split()),
        tags=reader.tags,
    )


@cache
def load_pages(root: Path | None = None) -> tuple[Page, ...]:
    """Every HTML page of the built site, sorted by URL (``_static``, ``_sources`` left out)."""
    base = site_dir() if root is None else root
    files = sorted(
        p for p in base.rglob("*.html") if not p.relative_to(base).parts[0].startswith("_")
    )
    return tuple(read_page(p, base) for p in files)


def page(url: str) -> Page:
    """The page at ``url`` (relative to the site root); KeyError if the site has none."""
    for p in load_pages():
        if p.url == url:
            return p
    raise KeyError(f"the built site has no page {url!r}")


def titles() -> dict[str, str]:
    """URL -> <title> of every page."""
    return {p.url: p.title for p in load_pages()}
