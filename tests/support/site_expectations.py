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
    "index.html": Expect(texts=("ownership", "Start here")),
    "guide/first-look.html": Expect(math=True, texts=("version counter",)),
    "guide/overview.html": Expect(texts=("You can now",)),
    "guide/study-1-version-counter.html": Expect(
        texts=("version counter", "Sigmoid", "Writes through views"),
        selectors=("div.ownership-memory svg",),
    ),
    "guide/study-2-detach-and-accumulation.html": Expect(math=True, texts=("detach",)),
    "guide/study-3-parameters-and-buffers.html": Expect(
        texts=("register_buffer", "Who owns the optimizer")
    ),
    "guide/reproduce.html": Expect(min_dropdowns=3),
    "guide/self-test.html": Expect(min_dropdowns=8, texts=("Transfer",)),
    "guide/completion.html": Expect(min_dropdowns=12),
    "guide/practice.html": Expect(min_dropdowns=4, texts=("python -m ownership.grade",)),
    "guide/traps.html": Expect(texts=(".data", "The signatures, seen")),
    "guide/in-the-wild.html": Expect(texts=("AsStrided", "deepcopy", "requires_grad_(False)")),
    "guide/end.html": Expect(texts=("What comes next", "2.2", "2.3")),
    "explain/engine-internals.html": Expect(texts=("_version_counter", "Predict.")),
    # the tour's table, computed from the engine when the site is built
    "explain/tour.html": Expect(
        selectors=("table.tour-summary", "div.tour-stop span.viewcode-link"),
        texts=("all 10 rules", "Where to go next"),
    ),
    "glossary.html": Expect(texts=("version counter", "CopySlices", "state_dict")),
    "related/gradient-checks.html": Expect(math=True, selectors=("img",), texts=("Predict.",)),
    "related/views-and-strides.html": Expect(texts=("storage_offset", "Predict.")),
    "related/broadcasting.html": Expect(texts=("unbroadcast", "Predict.")),
    "related/softmax-cross-entropy.html": Expect(math=True, texts=("ignore_index", "Predict.")),
    "related/training-signatures.html": Expect(texts=("Predict.", "Accumulation signature")),
    "recipes/find-the-line.html": Expect(texts=("inplace-write", "The doctor says")),
    "related/containers-and-hooks.html": Expect(texts=("ModuleList", "Predict.")),
    "related/inference-mode.html": Expect(texts=("inference_mode", "Predict.")),
}

# Searches run on search.html: each query must find at least one result.
SEARCHES: tuple[str, ...] = ("version counter",)

# Screenshots saved to _build/screenshots/ for review: file name -> candidate pages (the first
# page the site has is used).
SCREENSHOTS: dict[str, tuple[str, ...]] = {
    "overview.png": ("guide/overview.html", "index.html"),
    "study.png": ("guide/study-1-version-counter.html", "guide/first-look.html"),
}

# The unit's pages, in reading order: the core path. Each opens with what it teaches and its time
# ("Time: N min" in a ``page-outcomes`` box) and closes with ``key-takeaways``.
UNIT_PAGES: tuple[str, ...] = (
    "guide/overview.html",
    "guide/first-look.html",
    "guide/study-1-version-counter.html",
    "guide/study-2-detach-and-accumulation.html",
    "guide/study-3-parameters-and-buffers.html",
    "guide/in-the-wild.html",
    "guide/focus.html",
    "guide/reproduce.html",
    "guide/traps.html",
    "guide/practice.html",
    "guide/self-test.html",
    "guide/completion.html",
    "guide/end.html",
)
TIME_BUDGET_MIN = 180  # the unit is about three hours, readings and exercises included
CODE_BUDGET_LINES = 800  # visible code on the unit's pages, in all

# Words for the people who build the site, not for learners.
NOT_FOR_LEARNERS: tuple[str, ...] = (
    "the build fails",
    "make doctest",
    "threadpoolctl",
    "not verified",
    "namesake",
)

# Screenshots at a phone's width and in the dark theme, for review.
NARROW_WIDTH = 375
NARROW_SCREENSHOTS: dict[str, str] = {
    "narrow-study-1.png": "guide/study-1-version-counter.html",
    "narrow-in-the-wild.png": "guide/in-the-wild.html",
}
# Pictures drawn in the page's text colour (``ownership.pictures`` memory and curves): at 375 px
# and in the dark theme, every label stays 11 px or larger and takes the theme's light text colour.
THEMED_PICTURES: dict[str, str] = {
    "guide/study-1-version-counter.html": "div.ownership-memory svg",
    "guide/traps.html": "div.ownership-curves svg",
}
DARK_SCREENSHOTS: dict[str, str] = {
    "dark-study-2.png": "guide/study-2-detach-and-accumulation.html",
    "dark-study-3.png": "guide/study-3-parameters-and-buffers.html",
}

# The unit's pages with code: each offers its notebook (``p.notebook-download``).
NOTEBOOK_PAGES: tuple[str, ...] = (
    "guide/first-look.html",
    "guide/study-1-version-counter.html",
    "guide/study-2-detach-and-accumulation.html",
    "guide/study-3-parameters-and-buffers.html",
    "guide/in-the-wild.html",
    "guide/reproduce.html",
    "guide/traps.html",
    "guide/practice.html",
    "guide/self-test.html",
)
# The engine's wheel, built with the site (docs/_ext/downloads.py) and linked from the start page.
WHEEL = "ownership-0.1.0-py3-none-any.whl"

# The pages that give a command of the tools (``ownership grade ...``): each has the install box
# beside it (the ``{tools-install}`` directive of docs/_ext/downloads.py). Any other page that
# gives such a command needs the box too; these must be among them.
TOOLS_PAGES: tuple[str, ...] = (
    "guide/practice.html",
    "guide/completion.html",
    "recipes/find-the-line.html",
    "reference/doctor.html",
    "reference/grade.html",
    "reference/drills.html",
    "reference/audit.html",
)
# The notebooks made from those pages (a guide page whose code the reader sees has one).
TOOLS_NOTEBOOKS: tuple[str, ...] = ("practice.ipynb",)

# The optional pages with outputs: they must be legible at a phone's width too.
OPTIONAL_PAGES: tuple[str, ...] = (
    "related/broadcasting.html",
    "related/views-and-strides.html",
    "related/gradient-checks.html",
    "related/softmax-cross-entropy.html",
    "related/training-signatures.html",
    "recipes/swap-engines.html",
    "recipes/audit-a-module.html",
    "recipes/draw-a-graph.html",
    "explain/engine-internals.html",
    "explain/autograd-and-saved-tensors.html",
    "explain/tour.html",
)

# The stepper of each core page (ownership.pictures.stepper): its page, and the step it pauses
# before (the frame the learner predicts). Their pictures, and the graph pictures, must keep
# their size (labels never below 11 px) and follow the dark theme.
STEPPERS: dict[str, int] = {
    "guide/first-look.html": 3,
    "guide/study-1-version-counter.html": 5,
    "guide/study-2-detach-and-accumulation.html": 6,
    "guide/study-3-parameters-and-buffers.html": 6,
    "guide/in-the-wild.html": 7,
}
GRAPH_PAGES: tuple[str, ...] = (
    "guide/study-1-version-counter.html",
    "guide/study-2-detach-and-accumulation.html",
    "recipes/draw-a-graph.html",
)
