"""The engine's import graph: no runtime circle, and type-only imports close nothing but pairs.

The graph is read with :mod:`ast` from ``src/ownership``: an edge ``a -> b`` for each module-level
``import``/``from ... import`` of ``a`` naming module ``b`` (``from ownership.ops import table``
names ``ownership.ops.table``). Imports inside functions (at call time) are not edges; imports
under ``if TYPE_CHECKING:`` are *type-only* edges.

- The runtime graph has no circle, so no import order of the package's modules can matter.
- Each type-only edge inside a circle goes back along a runtime edge: a module names, for its
  annotations only, the module that imports it (``tensor_views`` names the ``Tensor`` that
  inherits from it). A circle through three modules (``a`` imports ``b`` imports ``c``, which
  names ``a``) fails.
- Each module of the tensor and ops layers, imported first (no ownership module loaded),
  leaves a package whose tensor methods work.

Run as a script to print the circles of the graph with type-only edges.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "ownership"


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


def _imports(body: list[ast.stmt], type_only: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """Module-level import statements, each with whether it sits under ``TYPE_CHECKING``."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, type_only
        elif isinstance(node, ast.If):
            yield from _imports(node.body, type_only or _is_type_checking(node.test))
            yield from _imports(node.orelse, type_only)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _imports(block, type_only)
            for handler in node.handlers:
                yield from _imports(handler.body, type_only)


def import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The runtime edges and the type-only edges between the package's modules."""
    modules = module_names()
    runtime: dict[str, set[str]] = {m: set() for m in modules}
    typing: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node, type_only in _imports(ast.parse(path.read_text()).body, False):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in targets:
                if target in modules and target not in (name, "ownership"):
                    (typing if type_only else runtime)[name].add(target)
    return runtime, typing


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
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
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def both(runtime: dict[str, set[str]], typing: dict[str, set[str]]) -> dict[str, set[str]]:
    return {m: runtime[m] | typing[m] for m in runtime}


def test_the_runtime_import_graph_has_no_circle() -> None:
    runtime, _ = import_graph()
    assert circles(runtime) == []


def test_type_only_imports_close_only_pairs() -> None:
    runtime, typing = import_graph()
    widened = []
    for group in circles(both(runtime, typing)):
        for name in group:
            for target in typing[name] & set(group):
                if name not in runtime[target]:
                    widened.append(f"{name} names {target}, which does not import it")
    assert widened == []


def test_the_checks_see_a_circle_of_three() -> None:
    """A planted circle ``a -> b -> c -(type only)-> a`` is found and is not a pair."""
    runtime = {"a": {"b"}, "b": {"c"}, "c": set()}
    typing: dict[str, set[str]] = {"a": set(), "b": set(), "c": {"a"}}
    assert circles(runtime) == []
    assert circles(both(runtime, typing)) == [["a", "b", "c"]]
    assert "c" not in runtime["a"]  # so the pair rule above reports c -> a


def test_the_graph_sees_the_tensor_and_its_bases() -> None:
    runtime, typing = import_graph()
    assert "ownership.tensor_views" in runtime["ownership._tensor"]
    assert "ownership._tensor" in typing["ownership.tensor_views"]
    assert (
        "ownership.ops.table"
        not in runtime["ownership.op_registry"] | typing["ownership.op_registry"]
    )


FIRST = """
import importlib, json, sys

def fresh():  # a fresh package: numpy and torch stay loaded, ownership does not
    for name in [m for m in sys.modules if m == "ownership" or m.startswith("ownership.")]:
        del sys.modules[name]

def first(module):
    fresh()
    try:
        importlib.import_module(module)
        import ownership
        assert ownership.tensor([4.0]).sqrt_().add(1).tolist() == [3.0]
    except Exception as error:
        return f"{module}: {error!r}"

failures = [first("ownership")]
by_the_package = {m for m in sys.modules if m.startswith("ownership.")}
alone = [m for m in sys.argv[1:] if m not in by_the_package]
failures += [first(module) for module in alone]
print(json.dumps({"failures": [f for f in failures if f], "alone": alone}))
"""


def test_each_module_imported_first_then_a_tensor_method() -> None:
    """Each module of the tensor and ops layers, imported first into an interpreter with no
    ownership module loaded, leaves a package whose tensor methods work (the op registry was
    once filled as a side effect of ``ownership/__init__`` importing ``ownership.ops``). The
    layers above (nn, optim, tools) only import these, and each import costs a package load.

    Python imports a package before any of its modules, so importing a module that
    ``import ownership`` loads runs the package's ``__init__`` first, whole, and then finds the
    module loaded: the same imports in the same order as ``import ownership``, checked once. Each
    module the package does not load is imported first into a fresh package of its own."""
    modules = sorted(
        m for m in module_names() if m.count(".") == 1 or m.startswith("ownership.ops")
    )
    done = subprocess.run(
        [sys.executable, "-c", FIRST, *modules],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["failures"] == []
    assert len(modules) > 40
    assert set(result["alone"]) < set(modules), "the package loads none of its modules"


if __name__ == "__main__":
    graph_runtime, graph_typing = import_graph()
    print("runtime circles:", circles(graph_runtime))
    print("circles with type-only imports:", circles(both(graph_runtime, graph_typing)))
