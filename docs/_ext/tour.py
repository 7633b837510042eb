"""The tour of the engine (``docs/explain/tour.md``): each rule of the unit as the code that decides it.

A rule's deciding functions are its ``enforced-by`` entries on ``docs/reference/rules.md`` (read
with :func:`rule_map.read_rules`, imported with :func:`rule_map.resolve`); the functions they
call are not counted. Each function's file, first line and length are read with :mod:`inspect`
when the page is built, so the tour follows the engine when a function moves, grows or shrinks.

- ``.. tour-stop:: <rule id>`` shows one rule: a link to its entry on the rules page, and each
  deciding function as a Python description (its signature and viewcode's ``[source]`` link,
  under the module and name that define it) with its file, lines and length. Use it inside an
  ``{eval-rst}`` block: the entry is written in reStructuredText.
- ``.. tour-summary::`` becomes a table of the page's stops in page order (the section each
  stands in, the rule, its functions, their files and lengths) and the totals. The stops must
  be the unit's rules (the rules of the layers ``core``, ``nn`` and ``optim``), each once.

``tests/build/test_tour.py`` recomputes the totals with :func:`measure` and :func:`totals`.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from rule_map import RULES_PAGE, RuleEntry, _function, _kind, _signature, read_rules, resolve
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

UNIT_LAYERS = ("core", "nn", "optim")
"""The layers of the unit's own rules (``parity`` rules are torch's beyond them)."""


@dataclass(frozen=True)
class Deciding:
    """One deciding function: where it is defined, and how long it is."""

    path: str  # as the rules page names it: ``ownership.nn.module.Module.state_dict``
    kind: str  # the Python domain directive that describes it: function, method, property...
    module: str  # the module that defines it: ``ownership.nn.module_state``
    qualname: str  # its name in that module: ``ModuleState.state_dict``
    signature: str  # its parameters, without annotations or ``self``
    file: str  # its file, from the package's folder on: ``ownership/nn/module_state.py``
    first: int  # the line of its ``def`` (or of its first decorator)
    lines: int  # its length in lines, decorators, docstring and comments included

    @property
    def last(self) -> int:
        return self.first + self.lines - 1


def deciding(path: str) -> Deciding:
    """The function, method or property a dotted path names, as :mod:`inspect` finds its source.

    Raises ImportError or AttributeError when the path leads nowhere, TypeError or OSError when
    the object has no Python source.
    """
    _, _, parent, obj = resolve(path)
    kind, fn = _kind(parent, obj), _function(obj)
    source, first = inspect.getsourcelines(fn)
    file = inspect.getsourcefile(fn)
    if file is None:
        raise OSError(f"no source file for {path}")
    package = sys.modules[fn.__module__.partition(".")[0]]
    root = Path(package.__file__ or file).resolve().parent.parent
    return Deciding(
        path=path,
        kind=kind,
        module=fn.__module__,
        qualname=fn.__qualname__,
        signature=_signature(kind, fn),
        file=Path(file).resolve().relative_to(root).as_posix(),
        first=first,
        lines=len(source),
    )


def unit_rules(text: str | None = None) -> list[RuleEntry]:
    """The unit's rules on the rules page (``text``, the page by default), in page order."""
    rules = read_rules(RULES_PAGE.read_text() if text is None else text)
    return [rule for rule in rules if rule.layer in UNIT_LAYERS]


def measure(rules: Iterable[RuleEntry]) -> dict[str, tuple[Deciding, ...]]:
    """Each rule's id -> its deciding functions, in the order the rules page lists them."""
    return {rule.id: tuple(deciding(path) for path in rule.enforced_by) for rule in rules}


def totals(functions: Iterable[Deciding]) -> tuple[int, int, int]:
    """``(lines, files, functions)`` of the functions, a function listed twice counted once.

    >>> f = Deciding("m.f", "function", "m", "f", "()", "m.py", 1, 10)
    >>> g = Deciding("m.g", "function", "m", "g", "()", "m.py", 20, 5)
    >>> totals([f, g, f])
    (15, 1, 2)
    """
    once = {(f.file, f.first): f for f in functions}
    return sum(f.lines for f in once.values()), len({f.file for f in once.values()}), len(once)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class TourStop(SphinxDirective):
    """``.. tour-stop:: <rule id>``: the rule's deciding functions, each where it is defined."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        rule_id = self.arguments[0]
        self.env.note_dependency(str(RULES_PAGE))
        rules = {rule.id: rule for rule in unit_rules()}
        if rule_id not in rules:
            logger.warning(
                f"tour-stop: {rule_id} is not one of the unit's rules on {RULES_PAGE.name}",
                location=self.get_location(),
            )
            return []
        rule = rules[rule_id]
        try:
            functions = measure([rule])[rule_id]
        except (ImportError, AttributeError, OSError, TypeError) as err:
            logger.warning(f"tour-stop: {rule_id}: {err}", location=self.get_location())
            return []
        for f in functions:
            self.env.note_dependency(str(Path(sys.modules[f.module].__file__ or "")))
        lines, files, count = totals(functions)
        text = [
            f"**Rule** :ref:`{rule_id} <rule-{rule_id}>` (layer {rule.layer}): "
            f"{_plural(count, 'function')}, {_plural(lines, 'line')} in {_plural(files, 'file')}.",
            "",
        ]
        for f in functions:
            text += [
                f".. py:{f.kind}:: {f.qualname}{f.signature if f.kind != 'property' else ''}",
                f"   :module: {f.module}",
                "   :no-index:",
                "",
                f"   ``{f.file}``, lines {f.first}-{f.last}: **{_plural(f.lines, 'line')}**",
                "",
            ]
        box = nodes.container(classes=["tour-stop"])
        box["tour"] = (rule_id, functions)
        box += self.parse_text_to_nodes("\n".join(text))
        target = nodes.target("", "", ids=[f"tour-{rule_id}"])
        return [target, box]


class tour_summary(nodes.General, nodes.Element):
    """Where the table of the page's stops goes (filled when the page has been read)."""


class TourSummary(SphinxDirective):
    """``.. tour-summary::``: a table of the page's stops and their totals."""

    def run(self) -> list[nodes.Node]:
        node = tour_summary()
        self.set_source_info(node)
        return [node]


def _entry(*paragraphs: list[nodes.Node]) -> nodes.entry:
    """A table cell of one paragraph per list of inline nodes."""
    return nodes.entry("", *(nodes.paragraph("", "", *children) for children in paragraphs))


def _row(*cells: nodes.entry) -> nodes.row:
    return nodes.row("", *cells)


def _section_title(node: nodes.Element) -> str:
    parent = node.parent
    while parent is not None and not isinstance(parent, nodes.section):
        parent = parent.parent
    return parent[0].astext() if parent is not None else ""


def _table(stops: list[nodes.Element]) -> nodes.table:
    """One row per deciding function: the stop (its section and rule), the function (linked to
    the stop), its length and its file; then the totals."""
    head = ("stop", "deciding function", "lines", "file")
    group = nodes.tgroup(cols=len(head))
    group += [nodes.colspec(colwidth=w) for w in (4, 4, 1, 5)]
    group += nodes.thead("", _row(*(_entry([nodes.Text(h)]) for h in head)))
    body = nodes.tbody()
    every: list[Deciding] = []
    part = ""
    for stop in stops:
        rule_id, functions = stop["tour"]
        new_part = _section_title(stop)
        for i, f in enumerate(functions):
            where: list[list[nodes.Node]] = []
            if i == 0 and new_part != part:
                where.append([nodes.Text(new_part)])
            if i == 0:
                where.append([nodes.literal(rule_id, rule_id)])
            link = nodes.reference("", "", internal=True, refid=f"tour-{rule_id}")
            link += nodes.literal(f.qualname, f.qualname)
            body += _row(
                _entry(*where),
                _entry([link]),
                _entry([nodes.Text(str(f.lines))]),
                _entry([nodes.literal(f.file, f.file)]),
            )
        every += functions
        part = new_part
    lines, files, count = totals(every)
    body += _row(
        _entry([nodes.strong("", f"all {_plural(len(stops), 'rule')}")]),
        _entry([nodes.Text(_plural(count, "function"))]),
        _entry([nodes.strong("", str(lines))]),
        _entry([nodes.Text(_plural(files, "file"))]),
    )
    group += body
    table = nodes.table(classes=["tour-summary"])
    table += group
    return table


def fill_summaries(app: Sphinx, doctree: nodes.document) -> None:
    """Each ``tour-summary`` becomes the table of the page's stops; a missing rule is a warning."""
    places = list(doctree.findall(tour_summary))
    if not places:
        return
    stops = [n for n in doctree.findall(nodes.container) if "tour" in n.attributes]
    shown = [stop["tour"][0] for stop in stops]
    wanted = [rule.id for rule in unit_rules()]
    missing = [r for r in wanted if r not in shown]
    twice = sorted({r for r in shown if shown.count(r) > 1})
    for place in places:
        if missing or twice:
            logger.warning(
                f"tour-summary: the page's stops miss {missing} and show {twice} twice",
                location=place,
            )
        place.replace_self(_table(stops))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(tour_summary)
    app.add_directive("tour-stop", TourStop)
    app.add_directive("tour-summary", TourSummary)
    app.connect("doctree-read", fill_summaries)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
