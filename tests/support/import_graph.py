"""The engine's import graph, read with :mod:`ast` from ``src/ownership`` (no module is run).

Each ``import``/``from ... import`` statement of a module is one :class:`Import` per module of the
package it names (``from ownership.ops import table`` names ``ownership.ops.table``; ``import
ownership`` names the package's face, ``ownership``), with *when* it runs:

- ``"load"``: when the module loads (module level, a class body, a ``try`` or a plain ``if``);
- ``"call"``: inside a function, when the function is first called;
- ``"type"``: under ``if TYPE_CHECKING:``, never at run time.

Python runs a package's ``__init__`` before any module of it: an import of ``ownership.ops.common``
from outside ``ownership.ops`` is also an import of ``ownership.ops`` (whose ``__init__`` may import
more), made at the same time. A module importing itself is no edge. Imports made by name at run
time (``importlib``) are not read: the tools that run a learner's program under an engine import
it so, as they import torch.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "ownership"
FACE = "ownership"


@dataclass(frozen=True)
class Import:
    """One module of the package named by one import statement of another."""

    source: str
    target: str
    line: int
    when: str  # "load", "call" or "type"

    def __str__(self) -> str:
        return f"{self.source}:{self.line} -> {self.target} ({self.when})"


def module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(node: ast.AST, when: str) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """The import statements under ``node``, each with when it runs."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, when
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for statement in child.body:
                yield from _statements(ast.Module(body=[statement], type_ignores=[]), "type")
            for statement in child.orelse:
                yield from _statements(ast.Module(body=[statement], type_ignores=[]), when)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _statements(child, "type" if when == "type" else "call")
        else:
            yield from _statements(child, when)


def _targets(
    node: ast.Import | ast.ImportFrom, package: str, modules: Iterable[str]
) -> Iterator[str]:
    known = set(modules)
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        parts = package.split(".")
        anchor = parts[: len(parts) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        yield sub if sub in known else base


@functools.cache
def imports() -> tuple[Import, ...]:
    """Every import of a module of the package by another one (the face included, both ways),
    read once per process."""
    modules = module_names()
    packages = {name for name, path in modules.items() if path.name == "__init__.py"} - {FACE}
    found = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node, when in _statements(ast.parse(path.read_text()), "load"):
            for target in _targets(node, package, modules):
                if target not in modules:
                    continue
                parts = target.split(".")
                enclosing = {".".join(parts[:i]) for i in range(2, len(parts))} & packages
                for named in sorted({target} | enclosing):
                    inside = named != FACE and name.startswith(f"{named}.")
                    if named != name and not inside:
                        found.append(Import(name, named, node.lineno, when))
    return tuple(dict.fromkeys(found))  # (one statement may name a module twice)


def edges(found: Iterable[Import], whens: Iterable[str]) -> dict[str, set[str]]:
    """The graph of the imports that run ``whens`` (``{"load", "call"}``: every runtime import),
    between the modules of the package, the face left out (it imports every layer)."""
    chosen = set(whens)
    graph: dict[str, set[str]] = {m: set() for m in module_names() if m != FACE}
    for edge in found:
        if edge.when in chosen and FACE not in (edge.source, edge.target):
            graph[edge.source].add(edge.target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan's algorithm, iterative),
    each sorted, the largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(found, key=lambda group: (-len(group), group))
