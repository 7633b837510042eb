"""Every method torch's Tensor and the engine's share, called on the class without its tensor
(``Tensor.neg()``, ``Tensor.new_zeros(5)``, ``Tensor.__float__('a')``), raises what torch raises,
in its words: CPython's for torch's C methods (``unbound method TensorBase.neg() needs an
argument``, ``descriptor 'new_zeros' for 'torch._C.TensorBase' objects doesn't apply to a 'int'
object``), Python's, under torch's names, for those torch writes in Python (``Tensor.backward()
missing 1 required positional argument: 'self'``; ``NotImplemented`` from its reflected
operators), never the engine's own names or attributes (``'int' object has no attribute
'_data'``).

The names are read from both classes when the tests are collected, so a method the engine gains
is checked too. A method torch writes in Python runs its body on any first argument; where that
body fails inside torch's own machinery (:data:`TORCH_INTERNALS`), only the call without one is
compared; the hook methods are left out (:data:`NAMED_AS_THE_ENGINES`).
"""

from __future__ import annotations

import itertools
from types import ModuleType
from typing import Any

import pytest
import torch

import ownership

from support.differential import same

NOT_METHODS = frozenset({"__new__"})
"""Names of both classes that are no method of a tensor: the constructor."""

NAMES = sorted(
    name
    for name in set(dir(torch.Tensor)) & set(dir(ownership.Tensor))
    if (not name.startswith("_") or (name.startswith("__") and name.endswith("__")))
    and name not in NOT_METHODS
    and callable(getattr(torch.Tensor, name))
    and callable(getattr(ownership.Tensor, name))
)
"""The public and special methods of both Tensors."""

FIRSTS = ("", "3", "'a'")
"""What the call on the class gets: nothing, or a first argument that is no tensor."""

TORCH_INTERNALS = frozenset(
    itertools.product(
        ("__array__", "__dir__", "__repr__", "backward"),
        ("3", "'a'"),
    )
)
"""Python methods of torch's whose body, given a number or a string as ``self``, fails inside
torch's own machinery (``is_functorch_wrapped_tensor(): incompatible function arguments``,
``list.remove(x): x not in list``, ``'int' object is not iterable``): the engine's fail at their
first attribute instead."""

NAMED_AS_THE_ENGINES = frozenset(
    itertools.product(("register_hook", "register_post_accumulate_grad_hook"), FIRSTS)
)
"""Python methods of torch's that Python refuses as ``TensorHookMethods.register_hook()``, not
``Tensor.register_hook()``: the site's autodoc finds a method's class by its qualified name in
its module (``ownership.autograd.graph``, which has no ``Tensor``, as torch's has none)."""


def outcome(engine: ModuleType, name: str, first: str) -> tuple[str, str]:
    """The exception class and message of ``engine.Tensor.<name>(<first>)``, or what it
    returned."""
    method = getattr(engine.Tensor, name)
    try:
        result: Any = method(*((eval(first),) if first else ()))
    except Exception as error:
        return type(error).__name__, str(error)
    return "returned", type(result).__name__


@pytest.mark.parametrize(
    ("name", "first"),
    [
        case
        for case in itertools.product(NAMES, FIRSTS)
        if case not in TORCH_INTERNALS | NAMED_AS_THE_ENGINES
    ],
    ids=lambda v: str(v) or "()",
)
def test_a_method_called_on_the_class_without_its_tensor_is_refused_as_torchs(
    name: str, first: str
) -> None:
    same(lambda t: outcome(t, name, first))


def test_the_check_finds_the_methods() -> None:
    """The sweep reads the classes: it checks the made, written and Python methods."""
    assert len(NAMES) > 250
    assert {"neg", "new_zeros", "__float__", "__getitem__", "backward", "__rsub__"} <= set(NAMES)


@pytest.mark.parametrize(
    "call",
    ["x.__getitem__()", "x.__setitem__()", "x.__setitem__(0)", "t.Tensor.__setitem__(x, 0)"],
)
def test_an_index_slot_without_its_arguments_is_refused_in_cpythons_words(call: str) -> None:
    """``x.__getitem__()``: ``expected 1 argument, got 0``, CPython's slot wrapper's words."""

    def program(t: ModuleType) -> tuple[str, str]:
        try:
            eval(call, {"t": t, "x": t.zeros(2)})
        except TypeError as error:
            return "TypeError", str(error)
        return "returned", ""

    same(program)
