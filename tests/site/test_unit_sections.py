"""The built guide covers the whole unit: every section has its page, every item its section.

The unit (``shared/seed``) has sections (overview, three study steps, focus, reproduce, traps,
practice, self-test, completion, related topics, resources) and countable items in them: 3 traps,
4 self-test questions, 3 reproduce tasks and 2 practice items. The guide paraphrases the unit, so
items are recognized by stable terms (API names, the unit's key phrases), and each item must be
one *section* of its page (the text from one ``<h2>`` to the next) holding all of its terms: a
deleted section fails the test, rewording the prose around the terms does not.

These checks read the built HTML (``_build/html``); without it they are skipped (``make html``
first, or ``make test``, which builds the site and then runs them).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from support.sitepages import Page, load_pages

# --- the unit's sections and the page of each -------------------------------------------------

# url -> words the page's <h1> must contain (case-insensitive)
SECTION_PAGES = {
    "guide/overview.html": ["overview"],
    "guide/study-1-version-counter.html": ["in-place", "version counter"],
    "guide/study-2-detach-and-accumulation.html": ["detach"],
    "guide/study-3-parameters-and-buffers.html": ["parameters", "buffers"],
    "guide/focus.html": ["focus"],
    "guide/reproduce.html": ["reproduce"],
    "guide/traps.html": ["traps"],
    "guide/practice.html": ["practice"],
    "guide/self-test.html": ["self-test"],
    "guide/completion.html": ["completion"],
    "related/broadcasting.html": ["broadcasting"],
    "related/views-and-strides.html": ["views", "strides"],
    "related/gradient-checks.html": ["gradient check"],
    "related/softmax-cross-entropy.html": ["softmax", "cross-entropy"],
    "resources.html": ["resources"],
}

# --- the unit's countable items: (page, item, terms one <h2> section must all contain) ----------

ITEMS = [
    # the 3 traps
    ("guide/traps.html", "trap: silencing the error through .data", [".data", "clone"]),
    ("guide/traps.html", "trap: detaching a hidden activation", ["detach", "None", "loss"]),
    ("guide/traps.html", "trap: persistent state as a Parameter", ["Parameter", "buffer"]),
    # the 4 self-test questions
    (
        "guide/self-test.html",
        "self-test: modified saved tensor, then backward",
        ["in place", "backward", "modified by an inplace operation", "version"],
    ),
    ("guide/self-test.html", "self-test: dz/dx through detach", ["y.detach()", "dz/dx", "3x^2"]),
    ("guide/self-test.html", "self-test: two backward calls", ["backward", "zero_", "sum"]),
    (
        "guide/self-test.html",
        "self-test: running event counter",
        ["running event counter", "buffer", "register_buffer"],
    ),
    # the 3 reproduce tasks
    ("guide/reproduce.html", "reproduce: sigmoid and mul_", ["sigmoid", "mul_(2)", "version"]),
    ("guide/reproduce.html", "reproduce: dz/dx = u", ["detach", "3x^2"]),
    ("guide/reproduce.html", "reproduce: running counter", ["counter", "buffer"]),
    # the 2 practice items, with their follow-ups
    (
        "guide/practice.html",
        "practice: Collect Module Parameters Recursively",
        ["Collect Module Parameters Recursively", "1, 2, 5, 3, 4, 6", "view"],
    ),
    (
        "guide/practice.html",
        "practice: Apply One Full SGD Training Step",
        ["Apply One Full SGD Training Step", "0.384463", "zero_grad", "no_grad"],
    ),
]

# Each practice item links its exercise at tensortonic.com.
PRACTICE_LINKS = [
    "https://www.tensortonic.com/study-plans/autograd-from-scratch/"
    "autograd-l07-recursive-parameter-collection",
    "https://www.tensortonic.com/study-plans/autograd-from-scratch/autograd-l08-sgd-training-step",
]

# Every resource of the unit is linked from the resources page (at these addresses or below them).
RESOURCE_LINKS = [
    "https://d2l.ai/chapter_preliminaries/autograd.html#detaching-computation",
    "https://docs.pytorch.org/docs/stable/notes/autograd.html#in-place-correctness-checks",
    "https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html",
    "https://udlbook.github.io/udlbook/",
    "https://www.tensortonic.com/study-plans/autograd-from-scratch/",
    "https://www.deep-ml.com/problems/26",
    "https://cs231n.github.io/linear-classify/#softmax-stability",
    "https://cs231n.github.io/neural-networks-3/#gradcheck",
    "https://docs.pytorch.org/docs/stable/notes/broadcasting.html#general-semantics",
    "https://docs.pytorch.org/docs/stable/generated/torch.autograd.gradcheck.gradcheck.html",
    "https://docs.pytorch.org/docs/stable/generated/torch.nn.functional.cross_entropy.html",
    "https://docs.pytorch.org/docs/stable/tensor_view.html",
    "https://docs.pytorch.org/docs/stable/generated/torch.Tensor.stride.html",
]

MIN_DRILLS = 12

_TAG = re.compile(r"<[^>]+>")
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)


def _text(fragment: str) -> str:
    """Visible text of an HTML fragment, whitespace collapsed, math delimiters removed."""
    text = html.unescape(_TAG.sub(" ", _SCRIPT.sub(" ", fragment)))
    text = text.replace("\\(", "").replace("\\)", "").replace("\uf0c1", "").replace("¶", "")
    return " ".join(text.split())


def sections(page: Page) -> list[str]:
    """The page's text cut at each <h2>: one string per section (heading included)."""
    article = page.html.split('role="main"', 1)[-1]
    return [_text(part) for part in re.split(r"(?=<h2\b)", article)[1:]]


def _pages(site: Path) -> dict[str, Page]:
    return {p.url: p for p in load_pages(site)}


def _page(site: Path, url: str) -> Page:
    pages = _pages(site)
    if url not in pages:
        pytest.fail(f"the built site has no page {url!r} (a section of the unit is missing)")
    return pages[url]


@pytest.mark.parametrize("url", list(SECTION_PAGES))
def test_each_unit_section_has_its_page(site: Path, url: str) -> None:
    page = _page(site, url)
    h1 = page.h1.lower()
    missing = [word for word in SECTION_PAGES[url] if word not in h1]
    assert not missing, f"{url}: title {page.h1!r} does not mention {missing}"


def test_item_counts_match_the_unit() -> None:
    counts: dict[str, int] = {}
    for url, _, _ in ITEMS:
        counts[url] = counts.get(url, 0) + 1
    assert counts == {
        "guide/traps.html": 3,
        "guide/self-test.html": 4,
        "guide/reproduce.html": 3,
        "guide/practice.html": 2,
    }


@pytest.mark.parametrize(("url", "item", "terms"), ITEMS, ids=[item for _, item, _ in ITEMS])
def test_each_item_has_its_section(site: Path, url: str, item: str, terms: list[str]) -> None:
    parts = sections(_page(site, url))
    assert parts, f"{url} has no <h2> sections"
    holding = [s for s in parts if all(term in s for term in terms)]
    best = max(parts, key=lambda s: sum(term in s for term in terms))
    assert holding, (
        f"{url}: no section holds all of {terms} for {item!r}; the closest lacks "
        f"{[t for t in terms if t not in best]}"
    )


def test_items_of_a_page_are_distinct_sections(site: Path) -> None:
    """Two items may not be satisfied by one and the same section (each item is its own)."""
    for url in {u for u, _, _ in ITEMS}:
        parts = sections(_page(site, url))
        chosen: set[int] = set()
        for item_url, item, terms in ITEMS:
            if item_url != url:
                continue
            free = [
                i for i, s in enumerate(parts) if i not in chosen and all(t in s for t in terms)
            ]
            assert free, f"{url}: {item!r} has no section of its own"
            chosen.add(free[0])


def test_self_test_answers_are_dropdowns_with_doctests(site: Path) -> None:
    page = _page(site, "guide/self-test.html")
    assert page.dropdowns >= 4, f"self-test has {page.dropdowns} dropdowns, expected 4 answers"
    doctests = page.html.count('class="highlight-pycon')
    assert doctests >= 4, f"self-test shows {doctests} doctest blocks, expected one per answer"


def test_practice_links_each_exercise(site: Path) -> None:
    page = _page(site, "guide/practice.html")
    for link in PRACTICE_LINKS:
        assert f'href="{link}"' in page.html, f"practice page does not link {link}"


def test_completion_has_checklist_and_drills(site: Path) -> None:
    page = _page(site, "guide/completion.html")
    drills = sorted({int(n) for n in re.findall(r'id="drill-(\d+)"', page.html)})
    assert len(drills) >= MIN_DRILLS, f"only {len(drills)} drills on the completion page"
    assert drills == list(range(1, len(drills) + 1)), f"drills are not numbered 1..n: {drills}"
    assert page.dropdowns >= len(drills), "each drill's outcome must be in a dropdown"
    for outcome in ("error", "silent wrong gradient", "correct"):
        assert outcome in page.text, f"no drill reveals the outcome {outcome!r}"
    checklist = page.text.count("☐")
    assert checklist >= 4, f"the 'stop when' checklist has {checklist} items, expected >= 4"
    linked = set(re.findall(r'href="#drill-(\d+)"', page.html))
    assert len(linked) >= len(drills), "every drill is linked from the checklist"
    for signature in ("version", "detach", "accumulation", "buffer"):
        assert signature in page.text.lower(), f"the checklist does not cover {signature!r}"


def test_related_pages_show_their_subject(site: Path) -> None:
    expect = {
        "related/broadcasting.html": ["(5, 3, 4, 1)", "doesn't match the broadcast shape"],
        "related/views-and-strides.html": ["stride()", "storage_offset()", "contiguous"],
        "related/gradient-checks.html": ["eps", "1e-06", "stride 0"],
        "related/softmax-cross-entropy.html": ["ignore_index", "nan", "-100"],
    }
    for url, terms in expect.items():
        page = _page(site, url)
        missing = [t for t in terms if t not in page.text]
        assert not missing, f"{url} lacks {missing}"
    plot = _page(site, "related/gradient-checks.html")
    assert re.search(r'<img[^>]+src="[^"]+\.png"', plot.html), "the gradient-check plot is missing"


def test_resources_page_links_every_resource(site: Path) -> None:
    page = _page(site, "resources.html")
    hrefs = re.findall(r'href="([^"]+)"', page.html)
    for link in RESOURCE_LINKS:
        assert any(h.startswith(link) for h in hrefs), f"resources page does not link {link}"
    for unverified in ("997", "1227"):
        assert unverified in page.text
    assert "titles only" in page.text.lower()
