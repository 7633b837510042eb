"""The unit fits its three hours and speaks to learners: checks of the built pages (no browser).

- Every page of the unit opens with what it teaches and its time, and closes with key takeaways.
- Every page that states a time states the one rule's time (``support.page_time``): the core's,
  and that of its optional sections; the core path's times add up to at most ``TIME_BUDGET_MIN``,
  and the overview's table gives each page's time and their sum.
- The visible code on the unit's pages (code cells that are shown, folded or not, and code
  blocks; not outputs) is at most ``CODE_BUDGET_LINES`` lines in all.
- No visible code on a study page is proof machinery (``assert``, the engine comparison), and no
  page of the unit uses words meant for the people who build the site.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from support.page_time import Part, page_time, rounded
from support.readings import READINGS
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


def test_each_page_states_the_rules_time(site: object) -> None:
    """A unit page states its core's time and, if it has optional sections, theirs ("N min
    more"); any other page that states a time states its whole time (it is optional)."""
    wrong = []
    for p in load_pages():
        times = page_time(p.html)
        if times.stated is None:
            continue
        if p.url in UNIT_PAGES:
            expected = (times.minutes, times.optional_minutes or None)
        else:
            expected = (rounded(times.core.minutes + times.optional.minutes), None)
        if (times.stated, times.stated_optional) != expected:
            wrong.append(
                f"{p.url} states {(times.stated, times.stated_optional)}, the rule {expected}"
            )
    assert not wrong, "\n".join(wrong) + "\n(python -m support.page_time prints every figure)"


def test_the_core_path_fits_three_hours(site: object) -> None:
    times = {url: page_time(p.html) for url, p in _unit().items()}
    missing = [url for url, t in times.items() if t.stated is None]
    assert not missing, f"no time stated on {missing}"
    stated = {url: t.stated for url, t in times.items()}
    total = sum(t for t in stated.values() if t is not None)
    assert total <= TIME_BUDGET_MIN, f"the unit's pages add up to {total} min: {stated}"
    table = _unit()["guide/overview.html"].html.split('id="your-path-with-times"', 1)[-1]
    rows = [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("</table>", 1)[0], re.S)
    ]
    rows = [row for row in rows if row and row[0].isdigit()]  # the steps, not the total
    given = [(row[2], row[3]) for row in rows]
    expected = [
        (f"{t.stated} min", f"+ {t.stated_optional} min" if t.stated_optional else "")
        for t in times.values()
    ]
    assert given == expected, f"the overview's table gives {given}, the pages state {expected}"
    said = re.search(r"in all\s*(\d+)\s*min", _unit()["guide/overview.html"].text)
    assert said and int(said.group(1)) == total, (
        f"the overview's total ({said and said.group(1)}) is not the pages' sum ({total})"
    )


_PAGE = """<html><body><article role="main"><section id="t"><h1>T</h1>
<div class="admonition page-outcomes"><p><strong>Time:</strong> 9 min; the optional parts,
4 min more.</p></div>
<p><strong>Read first</strong> (2 min): <a class="reference external"
href="https://docs.pytorch.org/docs/stable/notes/autograd.html#in-place-operations-with-autograd">in
place</a> and <a href="https://docs.pytorch.org/docs/stable/notes/autograd.html#in-place-correctness-checks">checks</a>
five six seven eight nine ten.</p>
<div class="highlight-ipython3"><pre>a = 1
b = 2
</pre></div>
<details class="admonition hide below-input"><summary>Show the output</summary>
<div class="highlight-myst-ansi"><pre>one two three</pre></div></details>
<div class="ownership-stepper" data-pause="1"><div class="stepper-controls">
<button>Next</button><p class="stepper-status">Before line 1</p></div>
<pre class="stepper-code"><code><span>x = f()</span>
<span>y = g(x)</span></code></pre><div class="stepper-frames">
<div class="stepper-frame"><svg><text>x [3] version 0</text></svg></div>
<div class="stepper-frame" hidden><svg><text>x [3] version 1</text></svg>
<pre class="stepper-printed">printed</pre></div>
<div class="stepper-predict" hidden><p><strong>Predict.</strong> What changes?</p>
<button>Reveal</button></div></div></div>
<section id="e"><h2>Exercise 1: write it</h2><p>alpha beta</p></section>
<section id="o"><h2>Going further (optional)</h2>
<details class="sd-dropdown"><summary>Answer</summary><p>gamma delta</p></details>
<section id="k"><h3>Task 1: from memory</h3>
<div class="highlight-python"><pre>c = 3
</pre></div></section></section>
</section></article><p>outside the article</p></body></html>"""


def test_the_rule_counts_what_a_page_asks() -> None:
    """The counter on a page made by hand: words, code lines, questions, a stepper's frames,
    tasks, exercises, readings, and the optional sections apart (it runs without a built
    site)."""
    times = page_time(_PAGE)
    core, optional = times.core, times.optional
    assert (times.stated, times.stated_optional) == (9, 4)
    assert (core.code_lines, core.questions, core.exercises, core.tasks) == (4, 2, 1, 0)
    assert (core.frames, optional.frames) == (2, 0)  # a stepper: its code, frames and pause
    # the readings by their lengths in support.readings (168 and 81 words), not the 2 min stated
    assert core.reading_minutes == pytest.approx((168 + 81) / 150)
    assert [(n, len(links)) for n, links in times.readings] == [(2, 2)]
    assert (optional.code_lines, optional.questions, optional.tasks, optional.exercises) == (
        1,
        1,
        1,
        0,
    )
    assert optional.words == 9  # Going further optional gamma delta Task 1 from memory
    assert core.words == 37  # not the summaries, a frame's picture, nor text outside the article
    assert core.minutes > optional.minutes > 0
    assert rounded(12.4) == 10 and rounded(12.5) == 15 and rounded(3.2) == 3


def test_a_reading_without_a_length_is_refused() -> None:
    """A Read-first paragraph that links a section support.readings has not counted cannot be
    timed: the counter says so instead of counting it as nothing."""
    page = _PAGE.replace("#in-place-correctness-checks", "#saved-tensors")
    with pytest.raises(ValueError, match="saved-tensors"):
        page_time(page)


def test_every_reading_is_a_resource_of_the_unit() -> None:
    """Each counted reading is one the resources page cites (so the table and the unit's list of
    resources name the same sections)."""
    resources = (Path(__file__).resolve().parents[2] / "docs" / "resources.md").read_text()
    missing = [url for url in READINGS if f"({url})" not in resources]
    assert not missing, f"docs/resources.md does not cite {missing}"


def test_each_read_first_states_its_readings_time(site: object) -> None:
    """The N of "Read first (N min)" is the rule's time of the sections it links, rounded as a
    page's time is (the counter itself adds the unrounded time to the page)."""
    wrong, seen = [], 0
    for p in load_pages():
        for stated, links in page_time(p.html).readings:
            seen += 1
            minutes = sum(
                Part(words=READINGS[u].words, code_lines=READINGS[u].code_lines).minutes
                for u in links
            )
            if stated != rounded(minutes):
                wrong.append(f"{p.url}: Read first ({stated} min), the rule {rounded(minutes)}")
    assert seen >= 3, "the study pages' readings were not found"
    assert not wrong, "\n".join(wrong)


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
