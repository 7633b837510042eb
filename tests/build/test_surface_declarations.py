"""The Tensor surface and its declarations (``ownership/ops/methods.py``) do not drift apart.

- ``ownership/core/declared_methods.pyi``, the methods as mypy sees them, is what the declarations
  generate now (``python tests/build/test_surface_declarations.py --update`` rewrites it);
- every declared method is the Tensor's, set by ``surface.install``, and no class of the Tensor
  defines it too (one definition of a method);
- every method made from a declaration calls its op with arguments the op's signature binds,
  each read from a parameter torch's signatures of the method declare (the method/op drift
  check of the hand-written methods is mypy's: they call ``ops``, typed by ``OpTable``);
- every ``torch.*`` function of a declared op is the one its declaration makes or declares.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import ownership
from ownership.core.surface import Declared, _parameters
from ownership.ops import method_stub, methods, table
from ownership.ops.unbound_calls import PYTHON_METHODS

STUB = Path(ownership.__file__).parent / "core" / "declared_methods.pyi"


def test_the_stub_is_generated_from_the_declarations() -> None:
    assert STUB.read_text(encoding="utf-8") == method_stub.stub(methods.DECLARED), (
        "regenerate it: python tests/build/test_surface_declarations.py --update"
    )


def test_every_declared_method_is_the_tensors_and_defined_once() -> None:
    for declared in methods.DECLARED:
        for name in (declared.name, *declared.aliases):
            method = ownership.Tensor.__dict__[name]
            # a made alias is made under its own name, as torch's C method of its own; a method
            # torch writes in Python has torch's name (``__rtruediv__`` is ``Tensor.__rdiv__``)
            own = name if declared.method is None else declared.name
            assert method.__qualname__ == PYTHON_METHODS.get(own, f"Tensor.{own}"), name
            bases = ownership.Tensor.__mro__[1:-1]  # (object's ``==`` is Python's default)
            assert not any(name in vars(base) for base in bases), f"{name} defined twice"
    names = [n for d in methods.DECLARED for n in (d.name, *d.aliases)]
    assert len(names) == len(set(names))


def _made(declarations: list[Declared]) -> list[Declared]:
    return [d for d in declarations if d.method is None]


def test_every_made_method_calls_its_op_with_what_its_op_takes() -> None:
    made = _made(methods.DECLARED)
    assert len(made) > 100
    for declared in made:
        assert getattr(table, declared.table_name or "") is declared.op, declared.name
        signature = inspect.signature(declared.op)
        keywords = {spec.partition("=")[0]: None for spec in declared.keywords}
        signature.bind(None, *(None for _ in declared.args), **keywords)  # TypeError if not
        if declared.signatures is None:
            continue
        declared_names = {n for text in declared.signatures.texts for n in _parameters(text)}
        for spec in (*declared.args, *declared.keywords):
            assert spec.partition("=")[0] in declared_names, (declared.name, spec)


def test_a_made_method_reads_as_written() -> None:
    mul_ = ownership.Tensor.mul_
    assert mul_.__source__ == (
        "def mul_(self=UNBOUND, *args, **kwargs):\n"
        "    if not isinstance(self, Tensor):\n"
        '        unbound("mul_", self)\n'
        '    return ops.mul_(self, D.parse(args, kwargs)[1]["other"])\n'
    )
    x = ownership.ones(2)
    assert mul_(x, 3) is x and x.tolist() == [3.0, 3.0]


if __name__ == "__main__" and "--update" in sys.argv[1:]:
    STUB.write_text(method_stub.stub(methods.DECLARED), encoding="utf-8")


def test_every_declared_function_is_the_faces() -> None:
    """``torch.<name>`` of a declared op is the function its declaration makes, or the
    hand-written one it declares (``ownership.functions.FUNCTIONS``): one declaration per op
    gives its method, its in-place variant and its function."""
    from ownership.functions import FUNCTIONS

    assert set(FUNCTIONS) - set(ownership.__all__) == {"clip_"}  # torch has no torch.clip_
    assert len(FUNCTIONS) > 130
    for name, function in FUNCTIONS.items():
        if name in ownership.__all__:
            face = getattr(ownership, name)
            assert face is function, name
