"""The unit fits its three hours and speaks to learners: checks of the built pages (no browser).

- Every page of the unit opens with what it teaches and its time, and closes with key takeaways.
- The stated times add up to at most ``TIME_BUDGET_MIN``, and the overview's total is their sum.
- The visible code on the unit's pages (code cells that are shown, folded or not, and code
  blocks; not outputs) is at most ``CODE_BUDGET_LINES`` lines in all.
- No visible code on a study page is proof machinery (``assert``, the engine comparison), and no
  page of the unit uses words meant for the people who build the site.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from support.site_expectations import (
    CODE_BUDGET_LINES,
    NOT_FOR_LEARNERS,
    TIME_BUDGET_MIN,
    UNIT_PAGES,
)
from support.sitepages import Page, load_pages

_TIME = re.compile(r"Time:\s*(\d+)\s*min")
_CODE_LANGS = ("python", "python3", "ipython3", "pycon", "default")


class _Blocks(HTMLParser):
    """Collects, for each ``<pre>``, its text and the classes of every element around it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, list[str]]] = []
        self.blocks: list[tuple[list[str], str]] = []  # (enclosing classes, text of the <pre>)
        self._pre: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "img", "input", "meta", "link", "hr", "wbr"):
            return
        classes = (dict(attrs).get("class") or "").split()
        self.stack.append((tag, classes))
        if tag == "pre":
            self._pre = []

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            name, _ = self.stack.pop()
            if name == tag:
                break
        if tag == "pre" and self._pre is not None:
            around = [c for _, cs in self.stack for c in cs]
            self.blocks.append((around, "".join(self._pre)))
            self._pre = None

    def handle_data(self, data: str) -> None:
        if self._pre is not None:
            self._pre.append(data)


def _section(page: Page, cls: str) -> str:
    match = re.search(rf'<div class="[^"]*\b{cls}\b[^"]*">(.*?)</div>', page.html, re.S)
    return re.sub(r"<[^>]+>", " ", match.group(1)) if match else ""


def visible_code(page: Page) -> list[str]:
    """The code blocks a reader can see (or unfold) on the page, outputs left out (code that a
    cell writes as Markdown, such as the completion drills, counts as code)."""
    parser = _Blocks()
    parser.feed(page.html.split('role="main"', 1)[-1])
    code = []
    for around, text in parser.blocks:  # outputs are highlight-myst-ansi, -ipythontb or -text
        if any(c == f"highlight-{lang}" for c in around for lang in _CODE_LANGS):
            code.append(text)
    return code


def _unit() -> dict[str, Page]:
    pages = {p.url: p for p in load_pages()}
    missing = [u for u in UNIT_PAGES if u not in pages]
    assert not missing, f"the unit's pages are missing: {missing}"
    return {u: pages[u] for u in UNIT_PAGES}


def test_each_unit_page_states_outcomes_time_and_takeaways(site: object) -> None:
    for url, page in _unit().items():
        opening = _section(page, "page-outcomes")
        assert _TIME.search(opening), f"{url} does not open with its outcomes and time"
        assert "key-takeaways" in page.html or url == "guide/end.html", (
            f"{url} does not close with key takeaways"
        )


def test_the_core_path_fits_three_hours(site: object) -> None:
    times = {
        url: int(_TIME.search(_section(p, "page-outcomes")).group(1)) for url, p in _unit().items()
    }  # type: ignore[union-attr]
    total = sum(times.values())
    assert total <= TIME_BUDGET_MIN, f"the unit's pages add up to {total} min: {times}"
    overview = _unit()["guide/overview.html"].text
    stated = re.search(r"in all\s*(\d+)\s*min", overview)
    assert stated and int(stated.group(1)) == total, (
        f"the overview's total ({stated and stated.group(1)}) is not the pages' sum ({total})"
    )


def test_visible_code_fits_the_budget(site: object) -> None:
    lines = {
        url: sum(len(b.strip("\n").splitlines()) for b in visible_code(p))
        for url, p in _unit().items()
    }
    total = sum(lines.values())
    assert total <= CODE_BUDGET_LINES, f"{total} lines of visible code on the unit's pages: {lines}"


def test_the_budget_counter_counts(site: object) -> None:
    """The counter sees the code of a study page (so the budget test cannot pass by counting 0)."""
    page = _unit()["guide/study-1-version-counter.html"]
    code = "\n".join(visible_code(page))
    assert "h.mul_(2)" in code and "torch.tensor" in code
    assert 'print(f"{name:>8}' in code or "print(" in code


@pytest.mark.parametrize("url", [u for u in UNIT_PAGES if u != "guide/practice.html"])
def test_no_proof_machinery_in_visible_code(site: object, url: str) -> None:
    code = "\n".join(visible_code(_unit()[url]))
    for needle in ("assert ", "side_by_side", "both(", "__parity__", "re.compile"):
        assert needle not in code, f"{url} shows {needle!r} in its code"


@pytest.mark.parametrize("url", UNIT_PAGES)
def test_words_for_learners(site: object, url: str) -> None:
    text = _unit()[url].text.lower()
    found = [w for w in NOT_FOR_LEARNERS if w in text]
    assert not found, f"{url} says {found}"


STUDY_PAGES = [u for u in UNIT_PAGES if "/study-" in u or u.endswith("in-the-wild.html")]


@pytest.mark.parametrize("url", STUDY_PAGES)
def test_study_pages_ask_before_they_show(site: object, url: str) -> None:
    """At least three Predict prompts, and at least as many outputs folded until asked for."""
    html = _unit()[url].html
    prompts = html.count("<strong>Predict.</strong>")
    folded = len(re.findall(r'<details class="[^"]*\bhide below-input\b', html))
    assert prompts >= 3, f"{url} has {prompts} Predict prompts"
    assert folded >= prompts, f"{url}: {prompts} prompts but only {folded} folded outputs"


@pytest.mark.parametrize("url", [u for u in UNIT_PAGES if u != "guide/practice.html"])
def test_unit_pages_link_the_glossary(site: object, url: str) -> None:
    terms = set(re.findall(r"glossary\.html#(term-[\w-]+)", _unit()[url].html))
    assert terms, f"{url} links no word to the glossary"
