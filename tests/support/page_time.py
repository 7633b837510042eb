"""The time a page of the guide takes, by one rule, read from the built page.

A learner reads the page carefully, runs and reads its code, stops at each question before its
answer, and does its exercises. So a page's time is the sum of:

- ``WORDS_PER_MINUTE``: its words (prose, admonitions, folded answers, outputs and messages);
- ``SECONDS_PER_CODE_LINE``: each line of code it shows (read, run, perhaps changed);
- ``MINUTES_PER_QUESTION``: each reveal (a folded output, a dropdown, a stepper's pause): a
  question answered before it is opened;
- ``SECONDS_PER_FRAME``: each frame of a stepper (a program shown line by line with its state):
  its code is counted as code, its pictures are looked at, not read word by word;
- ``MINUTES_PER_TASK``: each closed-book task (a section headed "Task ..."), written from memory;
- ``MINUTES_PER_EXERCISE``: each exercise (a section headed "Exercise ..."), a function written
  and graded;
- each outside reading a "**Read first** (N min)" paragraph links: the rule applied to the
  section's words and code lines as ``support.readings`` counted them (not the N the page states;
  ``PageTime.readings`` keeps that N, which the site test holds to the rule's time).

Sections whose heading says "(optional)" are counted apart. A page states its time rounded:
to the minute under 10 minutes, to 5 minutes from 10 on. Why these constants: CONTRIBUTING.md,
"The unit's times". ``python -m support.page_time [SITE]`` (with ``tests`` on ``PYTHONPATH``)
prints every page's figures; ``tests/site/test_guide_budget.py`` holds the pages to them.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from support.readings import READINGS

WORDS_PER_MINUTE = 150
SECONDS_PER_CODE_LINE = 4
MINUTES_PER_QUESTION = 0.5
SECONDS_PER_FRAME = 15
MINUTES_PER_TASK = 5.0
MINUTES_PER_EXERCISE = 12.0

CODE_LANGUAGES = ("python", "python3", "ipython3", "pycon", "default")
_WORD = re.compile(r"[^\W_]+(?:[-'’.][^\W_]+)*|[=+*/<>-]{1,3}")
_READING = re.compile(r"Read first\s*\((\d+)\s*min\)")  # at the start of its paragraph
_STATED = re.compile(r"Time:\s*(\d+)\s*min")
_STATED_OPTIONAL = re.compile(r"(\d+)\s*min more")
_VOID = frozenset(("br", "img", "input", "meta", "link", "hr", "wbr", "source", "col"))


@dataclass
class Part:
    """What one part of a page (its core, or its optional sections) asks of a learner."""

    words: int = 0
    code_lines: int = 0
    questions: int = 0
    frames: int = 0
    tasks: int = 0
    exercises: int = 0
    reading_minutes: float = 0.0

    @property
    def minutes(self) -> float:
        """The rule's time for this part, unrounded."""
        return (
            self.words / WORDS_PER_MINUTE
            + self.code_lines * SECONDS_PER_CODE_LINE / 60
            + self.questions * MINUTES_PER_QUESTION
            + self.frames * SECONDS_PER_FRAME / 60
            + self.tasks * MINUTES_PER_TASK
            + self.exercises * MINUTES_PER_EXERCISE
            + self.reading_minutes
        )


def rounded(minutes: float) -> int:
    """The time a page states: whole minutes under 10, multiples of 5 from 10 on (half up).

    >>> [rounded(m) for m in (0.2, 2.5, 9.4, 9.6, 12.4, 12.5, 31.0)]
    [1, 3, 9, 10, 10, 15, 30]
    """
    if minutes < 9.5:
        return max(1, int(minutes + 0.5))
    return 5 * int(minutes / 5 + 0.5)


@dataclass
class PageTime:
    """A page's two parts and what its opening box states."""

    core: Part = field(default_factory=Part)
    optional: Part = field(default_factory=Part)
    stated: int | None = None  # "Time: N min"
    stated_optional: int | None = None  # "N min more" (for the optional parts)
    #: each "Read first (N min)" paragraph: the N it states and the readings it links
    readings: list[tuple[int, list[str]]] = field(default_factory=list)

    @property
    def minutes(self) -> int:
        """The core's time as the page must state it."""
        return rounded(self.core.minutes)

    @property
    def optional_minutes(self) -> int:
        """The optional parts' time as the page must state it (0 when it has none)."""
        return rounded(self.optional.minutes) if self.optional.minutes else 0


class _Counter(HTMLParser):
    """Walks the page's main article and counts into the core or the optional part."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.result = PageTime()
        self.stack: list[tuple[str, list[str]]] = []
        self.in_main = False
        self.optional: list[bool] = []  # one flag per open <section>
        self.heading: list[str] | None = None  # text of the heading being read
        self.pre: list[str] | None = None
        self.pre_is_code = False
        self.stepper = 0  # depth of the open stepper's root, 0 outside one
        self.predict = 0  # depth of the open stepper's prediction prompt
        self.outcomes: list[str] | None = None
        self.outcomes_depth = 0
        self.paragraph: list[str] | None = None  # the text of the open <p>
        self.links: list[str] = []  # the outside links of the open <p>
        self.paragraph_depth = 0

    def _part(self) -> Part:
        return self.result.optional if self.optional and self.optional[-1] else self.result.core

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "article" and attributes.get("role") == "main":
            self.in_main = True
            return
        if not self.in_main or tag in _VOID:
            return
        self.stack.append((tag, classes))
        if "ownership-stepper" in classes and not self.stepper:
            self.stepper = len(self.stack)
        elif self.stepper and "stepper-frame" in classes:
            self._part().frames += 1
        elif self.stepper and "stepper-predict" in classes:
            self._part().questions += 1
            self.predict = len(self.stack)
        if tag == "section":
            self.optional.append(bool(self.optional and self.optional[-1]))
        elif tag in ("h1", "h2", "h3", "h4"):
            self.heading = []
        elif tag == "pre":
            around = [c for _, cs in self.stack for c in cs]
            self.pre = []
            self.pre_is_code = "stepper-code" in classes or any(
                f"highlight-{lang}" in around for lang in CODE_LANGUAGES
            )
        elif tag == "details" and ("sd-dropdown" in classes or "hide" in classes):
            self._part().questions += 1
        elif tag == "p" and self.paragraph is None:
            self.paragraph, self.links, self.paragraph_depth = [], [], len(self.stack)
        elif tag == "a" and self.paragraph is not None:
            href = attributes.get("href") or ""
            if href.startswith(("http://", "https://")):
                self.links.append(href)
        elif tag == "div" and "page-outcomes" in classes and self.outcomes is None:
            self.outcomes = []
            self.outcomes_depth = len(self.stack)

    def handle_endtag(self, tag: str) -> None:
        if not self.in_main:
            return
        if tag == "article":
            self.in_main = False
            return
        if tag in _VOID or not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            name, _ = self.stack.pop()
            self._closed(name)
            if name == tag:
                break

    def _closed(self, tag: str) -> None:
        if self.paragraph is not None and len(self.stack) < self.paragraph_depth:
            self._read_first(" ".join("".join(self.paragraph).split()), self.links)
            self.paragraph = None
        if self.predict > len(self.stack):
            self.predict = 0
        if self.stepper > len(self.stack):
            self.stepper = 0
        if tag == "section" and self.optional:
            self.optional.pop()
        elif tag in ("h1", "h2", "h3", "h4") and self.heading is not None:
            title = " ".join("".join(self.heading).split())
            self.heading = None
            if self.optional and "(optional)" in title:
                self.optional[-1] = True
            part = self._part()
            part.words += len(_WORD.findall(title))
            if re.match(r"Exercise\b", title):
                part.exercises += 1
            elif re.match(r"Task\b", title):
                part.tasks += 1
        elif tag == "pre" and self.pre is not None:
            text = "".join(self.pre).strip("\n")
            if self.stepper and not self.pre_is_code:
                pass  # what a frame prints is part of its picture
            elif self.pre_is_code:
                self._part().code_lines += len(text.splitlines())
            else:
                self._part().words += len(_WORD.findall(text))
            self.pre = None
        elif tag == "div" and self.outcomes is not None and len(self.stack) < self.outcomes_depth:
            said = " ".join("".join(self.outcomes).split())
            stated, more = _STATED.search(said), _STATED_OPTIONAL.search(said)
            self.result.stated = int(stated.group(1)) if stated else None
            self.result.stated_optional = int(more.group(1)) if more else None
            self.outcomes_depth = -1

    def handle_data(self, data: str) -> None:
        if not self.in_main:
            return
        if self.pre is not None:
            self.pre.append(data)
            return
        if any(t in ("script", "style", "summary") for t, _ in self.stack):
            return
        if any(t == "a" and "headerlink" in cs for t, cs in self.stack):
            return
        if self.stepper and not self.predict:  # a stepper's frames are looked at, not read
            return
        if self.heading is not None:  # counted once the heading says whether it is optional
            self.heading.append(data)
            return
        if self.outcomes is not None and self.outcomes_depth > 0:
            self.outcomes.append(data)
        if self.paragraph is not None:
            self.paragraph.append(data)
        self._part().words += len(_WORD.findall(data))

    def _read_first(self, text: str, links: list[str]) -> None:
        """A paragraph that assigns readings adds their time, by the rule, to its part."""
        stated = _READING.match(text)
        if not stated:
            return
        unknown = [link for link in links if link not in READINGS]
        if unknown or not links:
            raise ValueError(
                f"a Read-first paragraph links {unknown or 'no section'}, whose length "
                "support/readings.py does not give: count it there"
            )
        self.result.readings.append((int(stated.group(1)), links))
        for link in links:
            reading = READINGS[link]
            self._part().reading_minutes += Part(
                words=reading.words, code_lines=reading.code_lines
            ).minutes


def page_time(html: str) -> PageTime:
    """Count one built page (its ``<article role="main">``) by the rule."""
    counter = _Counter()
    counter.feed(html)
    counter.close()
    return counter.result


def table(site: Path, urls: list[str]) -> str:
    """Each page's counts and times, and the core path's total (the pages in ``urls``)."""
    head = (
        f"{'page':44} {'words':>6} {'code':>5} {'quest':>5} {'frame':>5} {'task':>4} {'exer':>4} "
        f"{'read':>4} {'min':>6} {'states':>6} {'optional':>8}"
    )
    rows = [head]
    total = stated = optional_total = 0
    for url in urls:
        times = page_time((site / url).read_text(encoding="utf-8"))
        core = times.core
        total += times.minutes
        stated += times.stated or 0
        optional_total += times.optional_minutes
        optional = f"+{times.optional_minutes}" if times.optional_minutes else ""
        rows.append(
            f"{url:44} {core.words:6} {core.code_lines:5} {core.questions:5} {core.frames:5} "
            f"{core.tasks:4} "
            f"{core.exercises:4} {core.reading_minutes:4.1f} {core.minutes:6.1f} "
            f"{times.stated if times.stated is not None else '-':>6} {optional:>8}"
        )
    rows.append(
        f"{'the core path (rounded times, summed)':44} {total:>50} {stated:>6} {optional_total:>+8}"
    )
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    """Print the unit's pages' times (the site folder is the first argument, or the default)."""
    from support.site_expectations import UNIT_PAGES
    from support.sitepages import site_dir

    site = Path(argv[0]) if argv else site_dir()
    print(table(site, list(UNIT_PAGES)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
