"""The ``enforced-by`` directive: a rule of the unit, shown as the engine function that enforces it.

``docs/reference/rules.md`` maps each rule (the version error, the in-place errors, detach vs
``.data``, registration, ``state_dict``, ``SGD.step``) to the code that enforces it. Each entry is
built from the function itself, so the page cannot drift from the engine::

    .. enforced-by:: ownership.core.autograd.saved.SavedTensor.unpack
       :raises: RuntimeError
       :says: one of the variables needed for gradient computation has been modified

- The dotted path is imported: a function, method, property or class that moved or was renamed
  fails the build.
- The entry shows its signature, the first paragraph of its docstring, its file and (with
  ``sphinx.ext.viewcode``) a ``[source]`` link to its code. The extension also gives viewcode the
  module of a property, which viewcode cannot find by itself.
- The claims are checked against the function's own source, read with :mod:`ast`: ``:raises:``
  names an exception class it raises, ``:says:`` words of a message it writes (a fragment of one
  of its string literals, adjacent literals joined), ``:calls:`` a function or method it calls
  (space-separated names; each must be called), ``:sets:`` attributes it assigns (``t._base =``,
  ``self.value += 1``; space-separated names). A claim that stops being true fails the build.

Each rule opens with ``.. rule:: <id>`` and its ``:layer:`` (``core``, ``nn``, ``optim``, or
``parity`` for a part of torch beyond the unit's ten rules): the id is the rule's stable anchor
(``rules.html#rule-version-error``, and a label: ``{ref}`rule-version-error``` links to it),
unique on the page, and the layer says where in the engine the rule lives
(``tests/build/test_rules_page.py`` holds the ids and layers). :func:`read_rules` reads the
same ids, layers and dotted paths from the page's text, for the tour (``tour.py``) and the tests.

Use it inside an ``{eval-rst}`` block: the entry is written in reStructuredText.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)


def resolve(path: str) -> tuple[str, list[str], Any, Any]:
    """``(module name, attribute names, parent, object)`` for a dotted path to a module member.

    The longest importable prefix is the module; the rest are attributes read in turn (the last
    with ``inspect.getattr_static`` when the parent is a class, so a property stays a property).
    Raises ImportError or AttributeError when the path does not lead to an object.
    """
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:cut])
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        parent: Any = module
        obj: Any = module
        for attr in parts[cut:]:
            parent = obj
            read = inspect.getattr_static if inspect.isclass(obj) else getattr
            obj = read(obj, attr)
        return name, parts[cut:], parent, obj
    raise ImportError(f"no module to import in {path!r}")


def _kind(parent: Any, obj: Any) -> str:
    """The Python domain directive that describes ``obj`` as a member of ``parent``."""
    if inspect.isclass(obj):
        return "class"
    if not inspect.isclass(parent):
        return "function"
    if isinstance(obj, property):
        return "property"
    if isinstance(obj, staticmethod):
        return "staticmethod"
    if isinstance(obj, classmethod):
        return "classmethod"
    return "method"


def _function(obj: Any) -> Any:
    """The code object's owner: a property's getter, a static or class method's function."""
    if isinstance(obj, property):
        return obj.fget
    if isinstance(obj, staticmethod | classmethod):
        return obj.__func__
    return obj


def _signature(kind: str, fn: Any) -> str:
    """The parameters, without annotations, and without ``self``/``cls`` for a method."""
    if kind == "property":
        return ""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return "()"
    params = list(sig.parameters.values())
    if kind in ("method", "classmethod") and params:
        params = params[1:]
    params = [p.replace(annotation=p.empty) for p in params]
    return str(sig.replace(parameters=params, return_annotation=sig.empty))


def defined_in(fn: Any, module: str) -> str:
    """The file that defines ``fn``, relative to ``src/`` (``ownership/core/autograd/saved.py``).

    That is the module of ``fn``'s own ``__module__``, not ``module``, the one a rule's dotted
    path reaches it through: ``ownership.nn.module.Module.state_dict`` is defined in
    ``ownership/nn/module_state.py``, a class ``Module`` inherits from.
    """
    name = getattr(fn, "__module__", None) or module
    is_package = hasattr(importlib.import_module(name), "__path__")
    return name.replace(".", "/") + ("/__init__.py" if is_package else ".py")


def _first_paragraph(obj: Any, fn: Any) -> str:
    doc = inspect.getdoc(obj) or inspect.getdoc(fn) or ""
    return doc.split("\n\n", 1)[0].strip()


def _texts(tree: ast.AST) -> list[str]:
    """The text of every string literal (an f-string's holes written ``{}``)."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.append(n.value)
        elif isinstance(n, ast.JoinedStr):
            out.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in n.values))
    return out


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _assigned(tree: ast.AST) -> set[str]:
    """The attribute names the source assigns (``x.name = ...``, ``x.name += ...``, in tuples)."""
    targets: list[ast.expr] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            targets += n.targets
        elif isinstance(n, ast.AugAssign | ast.AnnAssign):
            targets.append(n.target)
    names = set()
    for target in targets:
        for t in ast.walk(target):
            if isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store):
                names.add(t.attr)
    return names


def check(
    fn: Any,
    raises: str | None,
    says: str | None,
    calls: list[str],
    sets: tuple[str, ...] | list[str] = (),
) -> list[str]:
    """What the function's source does not bear out of the claims made for it."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError) as err:
        return [f"its source cannot be read ({err})"]
    problems = []
    if raises:
        raised = {_name(n.exc) for n in ast.walk(tree) if isinstance(n, ast.Raise) and n.exc}
        if raises not in raised:
            problems.append(f"it raises no {raises} (it raises: {sorted(filter(None, raised))})")
    if says and not any(says in text for text in _texts(tree)):
        problems.append(f"no string literal of it says {says!r}")
    called = {_name(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    problems += [f"it does not call {name}" for name in calls if name not in called]
    assigned = _assigned(tree)
    problems += [f"it does not set .{name}" for name in sets if name not in assigned]
    return problems


class EnforcedBy(SphinxDirective):
    """``.. enforced-by:: dotted.path`` with optional ``:raises:``, ``:says:`` and ``:calls:``."""

    required_arguments = 1
    option_spec = {  # noqa: RUF012 (docutils reads a class attribute)
        "raises": directives.unchanged_required,
        "says": directives.unchanged_required,
        "calls": directives.unchanged_required,
        "sets": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        path = self.arguments[0]
        try:
            module, attrs, parent, obj = resolve(path)
        except (ImportError, AttributeError) as err:
            logger.warning(
                f"enforced-by: cannot import {path}: {err}", location=self.get_location()
            )
            return []
        kind, fn = _kind(parent, obj), _function(obj)
        raises, says = self.options.get("raises"), self.options.get("says")
        calls = self.options.get("calls", "").split()
        sets = self.options.get("sets", "").split()
        for problem in check(fn, raises, says, calls, sets):
            logger.warning(f"enforced-by: {path}: {problem}", location=self.get_location())
        lines = [
            f".. py:{kind}:: {'.'.join(attrs)}{_signature(kind, fn)}",
            f"   :module: {module}",
            "   :no-index:",
            "",
            textwrap.indent(_first_paragraph(obj, fn), "   "),
            "",
            f"   **In** ``{defined_in(fn, module)}``",
            "",
        ]
        if raises:
            words = f", in PyTorch's words: ``{says}``" if says else ""
            lines += [f"   **Raises** ``{raises}``{words}", ""]
        elif says:
            lines += [f"   **Says**, in PyTorch's words: ``{says}``", ""]
        if calls:
            lines += ["   **Calls** " + ", ".join(f"``{name}``" for name in calls), ""]
        if sets:
            lines += ["   **Sets** " + ", ".join(f"``.{name}``" for name in sets), ""]
        return self.parse_text_to_nodes("\n".join(lines))


LAYERS = ("core", "nn", "optim", "parity")
"""Where a rule lives: the engine's core, its ``nn`` or ``optim`` layer, or parity (a part of
torch the engine keeps beyond the unit's ten rules)."""

RULES_PAGE = Path(__file__).resolve().parents[1] / "reference" / "rules.md"
"""The page that states the rules (``docs/reference/rules.md``)."""

_RULE = re.compile(
    r"^(?:(?P<title>\S[^\n]*)\n-+\n\n)?\.\. rule:: (?P<id>\S+)\n   :layer: (?P<layer>\S+)$",
    re.MULTILINE,
)
_ENFORCED_BY = re.compile(r"^\.\. enforced-by:: (?P<path>\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class RuleEntry:
    """One rule of the rules page: its id, layer, title (reStructuredText) and enforcing code."""

    id: str
    layer: str
    title: str
    enforced_by: tuple[str, ...]  # the dotted paths of its ``enforced-by`` entries, each once


def read_rules(text: str) -> list[RuleEntry]:
    """The rules of the rules page's text, in page order.

    A rule runs from its ``.. rule::`` to the next one; its ``enforced-by`` paths are listed once
    each, in page order (a function shown twice, for two of its messages, is one function).

    >>> page = '''Title
    ... -----
    ...
    ... .. rule:: one
    ...    :layer: core
    ...
    ... .. enforced-by:: ownership.a.f
    ... .. enforced-by:: ownership.a.f
    ... .. enforced-by:: ownership.b.g
    ... '''
    >>> read_rules(page)
    [RuleEntry(id='one', layer='core', title='Title', enforced_by=('ownership.a.f', 'ownership.b.g'))]
    """
    found = list(_RULE.finditer(text))
    ends = [m.start() for m in found[1:]] + [len(text)]
    return [
        RuleEntry(
            m["id"],
            m["layer"],
            m["title"] or "",
            tuple(dict.fromkeys(e["path"] for e in _ENFORCED_BY.finditer(text, m.end(), end))),
        )
        for m, end in zip(found, ends, strict=True)
    ]


class Rule(SphinxDirective):
    """``.. rule:: <id>`` with ``:layer:``: the rule's stable anchor and the layer it lives in."""

    required_arguments = 1
    option_spec = {"layer": lambda value: directives.choice(value, LAYERS)}  # noqa: RUF012

    def run(self) -> list[nodes.Node]:
        rule_id = self.arguments[0]
        if "layer" not in self.options:
            logger.warning(f"rule {rule_id}: no :layer:", location=self.get_location())
        layer = self.options.get("layer", "?")
        anchor = f"rule-{rule_id}"
        target = nodes.target("", "", ids=[anchor])
        # a label other pages link to ({ref}`rule-bump`): noted in the domain directly, as the
        # rules page's rules stand in sections of an {eval-rst} block, whose targets MyST does not
        # hand to the page's document
        std = self.env.domains.standard_domain
        std.note_hyperlink_target(anchor, self.env.docname, anchor, f"rule {rule_id}")
        para = nodes.paragraph(classes=["rule-id"])
        para += nodes.Text("Rule ")
        para += nodes.literal(rule_id, rule_id)
        para += nodes.Text(f" · layer: {layer}")
        return [target, para]


def property_module(app: Sphinx, modname: str | None, fullname: str | None) -> str | None:
    """The module that defines a property, for viewcode's ``[source]`` link.

    viewcode looks for the object's ``__module__``, which a property lacks, so a documented
    property (``Tensor.data``) would get no link; its getter has one. ``None`` (viewcode's own
    rule decides) for anything else.
    """
    if not modname or not fullname:
        return None
    try:
        obj: Any = importlib.import_module(modname)
        for attr in fullname.split("."):
            obj = inspect.getattr_static(obj, attr)
    except (ImportError, AttributeError):
        return None
    return obj.fget.__module__ if isinstance(obj, property) and obj.fget else None


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("enforced-by", EnforcedBy)
    app.add_directive("rule", Rule)
    app.connect("viewcode-follow-imported", property_module)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
