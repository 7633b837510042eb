"""The engine's layers: core -> ops -> parity -> nn, optim -> tools, and no import circle at all.

Every import is read (:mod:`support.import_graph`), those made inside functions (at call time)
too: a function that imports a module of a higher layer when called closes a circle as surely as
an import at load time, only later. Imports under ``if TYPE_CHECKING:`` are for annotations and
run never; they are not edges here. The checks:

- no circle among the modules of ``src/ownership``, counting imports at load and call time;
- no module of the package imports its face, ``ownership`` (the package's ``__init__``, which
  imports every layer), nor :mod:`ownership.installation`, whose ``install()`` the face calls
  once: the one place where a higher layer fills a lower one's seams;
- each module has a layer in :data:`LAYERS` (a new module gets one), and no module imports one of
  a higher layer.

Where the engine is not yet in that shape, the imports that break a rule are listed below by
name (:data:`UPWARD`), checked to be exactly those (a fixed one leaves the list, a new one
fails), and the rule itself is a strict xfail until the list is empty.

Run as a script (``PYTHONPATH=src:tests python tests/build/test_layers.py``) to print the circles
and the upward imports.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from support.import_graph import FACE, Import, circles, edges, imports, module_names

ORDER = ("core", "ops", "parity", "nn/optim", "tools")
"""The layers from the bottom up: a module may import its own layer and those below."""

_CORE = "core core.*"
_OPS = """
ops ops.* functions math_functions reduction_functions product_functions view_functions
random mt19937 distributions avx_mathfun fused
"""
_PARITY = """
arguments overload argument_checks invalid_arguments keyword_order out_argument scope torch_names
printing serialization cuda accelerator backends backends.*
autograd autograd.anomaly_mode autograd.graph autograd.function autograd.function_ctx
autograd.once_differentiable autograd.gradcheck
"""
_NN_OPTIM = "nn nn.* optim optim.*"
_TOOLS = """
either_engine compare tolerance auditing audit_command command __main__
doctor doctor.* pictures pictures.* grade grade.* drills drills.*
"""

LAYERS: dict[str, tuple[str, ...]] = {
    layer: tuple(f"ownership.{name}" for name in names.split())
    for layer, names in zip(ORDER, (_CORE, _OPS, _PARITY, _NN_OPTIM, _TOOLS), strict=True)
}
"""Each layer's modules as the engine holds them today (``x.*``: every module under package
``x``), following the map of ``docs/reference/internals.md``: core is the unit's machinery
(storage and counter, layout, the tensor and its surface, the graph and saved tensors, the
in-place contract, backward); ops the ops and the ``torch`` functions over them; parity torch's
argument parser and its messages, ``out=``, serialization, custom ``Function`` and
``gradcheck``; then nn and optim; then the tools."""


def layer_of(module: str) -> str:
    """The layer :data:`LAYERS` gives ``module`` (its own name first, then a ``package.*``)."""
    for layer, names in LAYERS.items():
        if module in names:
            return layer
    for layer, names in LAYERS.items():
        for name in names:
            if name.endswith(".*") and module.startswith(name[:-1]):
                return layer
    raise KeyError(f"{module} has no layer in LAYERS")


def upward(found: Iterable[Import]) -> set[str]:
    """The runtime imports of a module of a higher layer, as ``source -> target``."""
    rank = {layer: i for i, layer in enumerate(ORDER)}
    return {
        f"{edge.source} -> {edge.target}"
        for edge in found
        if edge.when != "type"
        and edge.source not in FACES
        and edge.target not in FACES
        and rank[layer_of(edge.target)] > rank[layer_of(edge.source)]
    }


FACES = (FACE, "ownership.installation")
"""The face and the installation it runs: above every layer, imported by none."""

FACE_IMPORTS: set[str] = set()
"""The modules that still import a face (:data:`FACES`): none. The doctor's watch, which wrapped
the face's ``save`` (a learner's ``torch.save``), observes :func:`ownership.serialization.save`
through its seam (:data:`ownership.serialization.SAVING`); the command prints the installed
distribution's version (``importlib.metadata``), no longer the face's ``__version__``."""

_UPWARD_BY_TARGET: dict[str, str] = {}
"""The imports of a higher layer the engine still makes, by the module imported (the modules
importing it listed without ``ownership.``): none. Core's methods and the ops bind their
arguments through core's binder (:mod:`ownership.core.binder`), torch's parser installed there;
``out=`` is written through the ops' seam (:mod:`ownership.ops.out_variants`); serialization
is given nn's ``Parameter``; all by :func:`ownership.installation.install`."""

UPWARD = {
    f"ownership.{source} -> ownership.{target}"
    for target, sources in _UPWARD_BY_TARGET.items()
    for source in sources.split()
}
"""The same, as :func:`upward` lists them."""


def test_no_circle_counting_call_time_imports() -> None:
    """Once 92 modules made one circle (86 when a package's ``__init__`` is not counted), through
    imports inside functions: the op table filled from the ops, tensor methods and autograd
    importing ops, nodes and saved tensors importing each other, ``ownership.autograd`` importing
    custom ``Function``. :func:`ownership.installation.install` fills those seams now."""
    assert circles(edges(imports(), {"load", "call"})) == []


def _face_imports() -> list[Import]:
    return [edge for edge in imports() if edge.target in FACES and edge.source != FACE]


def test_the_modules_importing_the_face_are_as_listed() -> None:
    assert {edge.source for edge in _face_imports()} == FACE_IMPORTS


def test_no_module_imports_the_face() -> None:
    assert [str(edge) for edge in _face_imports()] == []


def test_every_module_has_one_layer() -> None:
    for module in module_names():
        if module not in FACES:
            layer_of(module)
    for names in LAYERS.values():
        for name in names:
            if not name.endswith(".*"):
                assert name in module_names(), f"LAYERS names {name}, which is no module"


def test_the_upward_imports_are_as_listed() -> None:
    assert sorted(upward(imports())) == sorted(UPWARD)


@pytest.mark.xfail(
    bool(UPWARD),
    strict=True,
    reason=f"{len(UPWARD)} imports of a higher layer remain, by module imported: "
    + "; ".join(f"{t} <- {len(s.split())}" for t, s in sorted(_UPWARD_BY_TARGET.items())),
)
def test_nothing_imports_a_higher_layer() -> None:
    assert sorted(upward(imports())) == []


def test_the_checks_see_a_call_time_circle_and_an_upward_import() -> None:
    """A planted import inside a function closes a circle and goes up a layer."""
    planted = [
        Import("ownership.core.storage", "ownership.core.layout", 1, "load"),
        Import("ownership.core.layout", "ownership.core.storage", 2, "call"),
        Import("ownership.core.layout", "ownership.nn.module", 3, "call"),
        Import("ownership.core.layout", "ownership.nn.module", 4, "type"),
    ]
    graph = edges(planted, {"load", "call"})
    assert circles(graph)[0] == ["ownership.core.layout", "ownership.core.storage"]
    assert circles(edges(planted, {"load"})) == []
    assert upward(planted) == {"ownership.core.layout -> ownership.nn.module"}


if __name__ == "__main__":
    every = imports()
    for group in circles(edges(every, {"load", "call"})):
        print(f"circle of {len(group)}:", " ".join(group))
        inside = set(group)
        for edge in every:
            if edge.when == "call" and edge.source in inside and edge.target in inside:
                print("   ", edge)
    print("face imports:", *(str(e) for e in _face_imports()), sep="\n    ")
    print("upward:", *sorted(upward(every)), sep="\n    ")
