"""Each page that gives a command of the tools says, beside it, how to get them: the install box.

A command is ``ownership doctor|grade|drills|audit`` followed by its arguments, or ``python -m
ownership.doctor|grade|drills``. The box (``div.install-tools``, made by the ``{tools-install}``
directive of ``docs/_ext/downloads.py``) links the engine's wheel, which the site serves, and
shows the ``pip install`` line; the notebooks of those pages carry the same words. The grader's
links to the sections to reread land on headings of the built site.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ownership.grade.catalogue import CATALOGUE

from support.site_expectations import TOOLS_NOTEBOOKS, TOOLS_PAGES, WHEEL
from support.sitepages import Page, load_pages

BOX_CLASS = "install-tools"
BOX_TITLE = "Get the tools"
COMMAND = re.compile(
    r"(?<![\w.])ownership (?:doctor|grade|drills|audit) (?:-|\[|collect|sgd|[\w/]+\.py|[A-Z]{4,})"
    r"|python -m ownership\.(?:doctor|grade|drills)\b"
)
TAG = re.compile(r"<[^>]+>")
NEAR = 2500  # characters of visible text between a command and its box, at most


def _visible(page: Page) -> str:
    """The page's body as text, tags removed (code spans joined as they read)."""
    body = page.html.split("<body", 1)[-1]
    body = re.sub(r"<(script|style)\b.*?</\1>", "", body, flags=re.S)
    return TAG.sub("", body)


def _pages_with_commands() -> dict[str, Page]:
    return {p.url: p for p in load_pages() if COMMAND.search(_visible(p))}


def test_the_pages_that_give_a_command_are_found(site: Path) -> None:
    found = _pages_with_commands()
    missing = [url for url in TOOLS_PAGES if url not in found]
    assert not missing, f"no command of the tools found on {missing}"


def test_every_page_with_a_command_has_the_install_box_beside_it(site: Path) -> None:
    problems = []
    for url, page in sorted(_pages_with_commands().items()):
        if not page.has_class("div", BOX_CLASS):
            problems.append(f"{url}: no install box")
            continue
        text = _visible(page)
        if f"pip install {WHEEL}" not in text:
            problems.append(f"{url}: the box has no `pip install {WHEEL}` line")
        boxes = [m.start() for m in re.finditer(BOX_TITLE, text)]
        commands = [m.start() for m in COMMAND.finditer(text)]
        if not any(abs(b - c) <= NEAR for b in boxes for c in commands):
            problems.append(f"{url}: the box is not beside a command")
        links = [a.get("href", "") for t, a in page.tags if t == "a" and "download" in a]
        wheels = [href for href in links if href.endswith("/" + WHEEL)]
        if not wheels:
            problems.append(f"{url}: the box does not link the wheel")
        for href in wheels:
            if not (page.path.parent / href).resolve().is_file():
                problems.append(f"{url}: the wheel's link {href} leads to no file")
    assert not problems, "\n".join(problems)


def _notebook_markdown(path: Path) -> str:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join(
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in notebook["cells"]
        if c["cell_type"] == "markdown"
    )


def test_every_notebook_with_a_command_has_the_box_too(site: Path) -> None:
    folder = site / "_downloads" / "notebooks"
    with_commands = {
        p.name: _notebook_markdown(p)
        for p in sorted(folder.glob("*.ipynb"))
        if COMMAND.search(_notebook_markdown(p))
    }
    assert set(TOOLS_NOTEBOOKS) <= set(with_commands), sorted(with_commands)
    for name, markdown in with_commands.items():
        assert "{tools-install}" not in markdown, f"{name}: the directive was left as it is"
        assert f"pip install {WHEEL}" in markdown and BOX_TITLE in markdown, name
        assert f"](../{WHEEL})" in markdown, name
    assert (site / "_downloads" / WHEEL).is_file()


@pytest.mark.parametrize("code", [c for c, e in CATALOGUE.items() if e.page])
def test_every_grader_link_lands_on_a_heading(site: Path, code: str) -> None:
    page, _, anchor = CATALOGUE[code].page.partition("#")
    html = (site / page).read_text(encoding="utf-8")
    assert not anchor or f'id="{anchor}"' in html, f"{page} has no #{anchor}"
