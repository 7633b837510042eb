"""The engine's import graph: no runtime circle, and type-only imports close nothing but pairs.

The graph is read with :mod:`ast` from ``src/ownership`` (:mod:`support.import_graph`): an edge
``a -> b`` for each import of ``a`` run when it loads naming module ``b``. Imports inside
functions (at call time) are checked by ``test_layers.py``; imports under ``if TYPE_CHECKING:``
are *type-only* edges.

- The runtime graph has no circle, so no import order of the package's modules can matter.
- Each type-only edge inside a circle goes back along a runtime edge: a module names, for its
  annotations only, the module that imports it (``tensor_metadata`` names the ``Tensor`` that
  inherits from it). A circle through three modules (``a`` imports ``b`` imports ``c``, which
  names ``a``) fails.
- Each module of the tensor and ops layers, imported first (no ownership module loaded),
  leaves a package whose tensor methods work.

Run as a script to print the circles of the graph with type-only edges.
"""

from __future__ import annotations

import json
import subprocess
import sys

from support.import_graph import circles, edges, imports, module_names


def import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The edges made when the modules load and the type-only edges (the face left out)."""
    found = imports()
    return edges(found, {"load"}), edges(found, {"type"})


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
    assert "ownership.core.tensor_metadata" in runtime["ownership.core.tensor"]
    assert "ownership.core.tensor" in typing["ownership.core.tensor_metadata"]
    assert (
        "ownership.ops.table"
        not in runtime["ownership.core.op_registry"] | typing["ownership.core.op_registry"]
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
