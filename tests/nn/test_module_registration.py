"""Module.__setattr__ decides what a value becomes; every refusal has torch's class and wording."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def registry(m: Any) -> Any:
    """Where each name landed: parameters, buffers, children, plain attributes (tensors only)."""
    plain = sorted(k for k, v in vars(m).items() if hasattr(v, "_version"))
    return (
        list(m._parameters),
        list(m._buffers),
        sorted(m._non_persistent_buffers_set),
        list(m._modules),
        plain,
    )


def test_one_setattr_routes_each_kind_of_value() -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        m.w = t.nn.Parameter(t.zeros(2))
        m.child = t.nn.ReLU()
        m.register_buffer("b", t.zeros(2))
        m.b = t.ones(2)  # a name already in _buffers: stays a buffer
        m.plain = t.zeros(2)  # a plain tensor: NOT a buffer
        m.number = 3
        return registry(m), m.b, m.number, "plain" in m.state_dict()

    assert same(program)[0] == (["w"], ["b"], [], ["child"], ["plain"])


def test_reassigning_a_name_moves_it_between_registries() -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        m.x = t.zeros(1)
        steps = [registry(m)]
        m.x = t.nn.Parameter(t.zeros(1))
        steps.append(registry(m))
        m.x = None  # a parameter name set to None stays a (None) parameter
        steps.append((registry(m), m.x, list(m.named_parameters())))
        del m.x
        m.register_buffer("x", t.zeros(1), persistent=False)
        steps.append(registry(m))
        m.x = t.nn.ReLU()
        steps.append(registry(m))
        m.x = None
        steps.append((registry(m), m.x))
        return steps

    same(program)


def test_buffer_assigned_none_stays_registered_and_leaves_state_dict() -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        m.register_buffer("b", t.zeros(1))
        m.b = None
        return list(m._buffers), m.b, list(m.state_dict()), list(m.named_buffers())

    same(program)


def test_getattr_finds_parameters_buffers_and_children() -> None:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(3, 2)
        return lin.weight is lin._parameters["weight"], "weight" in vars(lin)

    assert same(program) == (True, False)


def test_getattr_and_delattr_errors() -> None:
    same(lambda t: t.nn.Linear(3, 2).foo, raises="AttributeError")

    def delete(t: ModuleType) -> Any:
        lin = t.nn.Linear(3, 2)
        del lin.weight
        return list(lin._parameters), hasattr(lin, "weight")

    def read_deleted(t: ModuleType) -> Any:
        lin = t.nn.Linear(3, 2)
        del lin.weight
        return lin.weight

    same(delete)
    same(read_deleted, raises="AttributeError")
    same(lambda t: delattr(t.nn.Linear(3, 2), "nothere"), raises="AttributeError")


@pytest.mark.parametrize("name", ["weight", "bias", "nothere"])
def test_reading_an_attribute_before_module_init(name: str) -> None:
    """Before ``Module.__init__`` there are no registries to look in: torch's AttributeError."""

    def program(t: ModuleType) -> Any:
        class Early(t.nn.Linear):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                getattr(self, name)

        return Early()

    same(program, raises="AttributeError")


def early(what: str) -> Callable[[ModuleType], Any]:
    """A module that assigns something before calling super().__init__()."""

    def program(t: ModuleType) -> Any:
        class Early(t.nn.Module):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                if what == "parameter":
                    self.w = t.nn.Parameter(t.zeros(1))
                elif what == "module":
                    self.m = t.nn.ReLU()
                elif what == "buffer":
                    self.register_buffer("b", t.zeros(1))
                elif what == "register_parameter":
                    self.register_parameter("w", None)
                elif what == "tensor":
                    self.t = t.zeros(1)
                super().__init__()

        return registry(Early())

    return program


@pytest.mark.parametrize("what", ["parameter", "module", "buffer", "register_parameter", "tensor"])
def test_assigning_before_module_init(what: str) -> None:
    """torch refuses a parameter, module or buffer before ``Module.__init__`` (AttributeError)."""
    same(early(what), raises=None if what == "tensor" else "AttributeError")


def linear_then(action: Callable[[ModuleType, Any], Any]) -> Callable[[ModuleType], Any]:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(3, 2)
        action(t, lin)
        return registry(lin)

    return program


def _frozen_non_leaf_parameter(t: ModuleType) -> Any:
    p = t.nn.Parameter(t.ones(1), requires_grad=False)
    p.mul_(t.ones(1, requires_grad=True))  # in place with a tensor that requires grad
    return p


ERRORS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "set tensor as parameter": lambda t, m: setattr(m, "weight", t.zeros(2, 3)),
    "set int as parameter": lambda t, m: setattr(m, "weight", 3),
    "set double tensor as parameter": lambda t, m: setattr(m, "bias", t.zeros(2, dtype=t.float64)),
    "set non-leaf parameter": lambda t, m: setattr(m, "w", _frozen_non_leaf_parameter(t)),
    "param existing attribute": lambda t, m: m.register_parameter(
        "training", t.nn.Parameter(t.zeros(1))
    ),
    "param method name": lambda t, m: m.register_parameter("forward", None),
    "param dotted": lambda t, m: m.register_parameter("a.b", None),
    "param empty": lambda t, m: m.register_parameter("", None),
    "param int name": lambda t, m: m.register_parameter(3, None),
    "param tensor value": lambda t, m: m.register_parameter("w", t.zeros(1)),
    "param non-leaf tensor value": lambda t, m: m.register_parameter(
        "w", t.ones(1, requires_grad=True) * 2
    ),
    "param float value": lambda t, m: m.register_parameter("w", 1.5),
    "param non-leaf parameter": lambda t, m: m.register_parameter(
        "w", _frozen_non_leaf_parameter(t)
    ),
    "buffer int name": lambda t, m: m.register_buffer(3, t.zeros(1)),
    "buffer dotted": lambda t, m: m.register_buffer("a.b", t.zeros(1)),
    "buffer empty": lambda t, m: m.register_buffer("", t.zeros(1)),
    "buffer existing parameter": lambda t, m: m.register_buffer("weight", t.zeros(1)),
    "buffer existing attribute": lambda t, m: m.register_buffer("in_features", t.zeros(1)),
    "buffer int value": lambda t, m: m.register_buffer("b", 3),
    "buffer list value": lambda t, m: m.register_buffer("b", [1.0]),
    "set int on buffer name": lambda t, m: (
        m.register_buffer("b", t.zeros(1)),
        setattr(m, "b", 3),
    ),
    "module existing": lambda t, m: m.add_module("weight", t.nn.ReLU()),
    "module dotted": lambda t, m: m.add_module("a.b", t.nn.ReLU()),
    "module empty": lambda t, m: m.add_module("", t.nn.ReLU()),
    "module int name": lambda t, m: m.add_module(3, t.nn.ReLU()),
    "module int value": lambda t, m: m.add_module("c", 3),
    "module tensor value": lambda t, m: m.add_module("c", t.zeros(1)),
    "register_module alias": lambda t, m: m.register_module("weight", t.nn.ReLU()),
    "set int on child name": lambda t, m: (
        m.add_module("c", t.nn.ReLU()),
        setattr(m, "c", 3),
    ),
    "set tensor on child name": lambda t, m: (
        m.add_module("c", t.nn.ReLU()),
        setattr(m, "c", t.zeros(1)),
    ),
    "train with int": lambda t, m: m.train(1),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_registration_errors(name: str) -> None:
    same(linear_then(ERRORS[name]))


OK: dict[str, Callable[[ModuleType, Any], Any]] = {
    "re-register parameter": lambda t, m: m.register_parameter(
        "weight", t.nn.Parameter(t.zeros(1))
    ),
    "parameter None": lambda t, m: m.register_parameter("w", None),
    "buffer None": lambda t, m: m.register_buffer("b", None),
    "re-register buffer non-persistent": lambda t, m: (
        m.register_buffer("b", t.zeros(1)),
        m.register_buffer("b", t.ones(1), persistent=False),
    ),
    "module None": lambda t, m: m.add_module("c", None),
    "re-add module": lambda t, m: (m.add_module("c", t.nn.ReLU()), m.add_module("c", None)),
    "parameter over plain attribute": lambda t, m: (
        setattr(m, "x", t.zeros(1)),
        setattr(m, "x", t.nn.Parameter(t.zeros(1))),
    ),
}


@pytest.mark.parametrize("name", list(OK))
def test_registrations_that_succeed(name: str) -> None:
    same(linear_then(OK[name]))


WRONG_KINDS: dict[str, Any] = {
    "a module as a parameter": lambda t, lin: setattr(lin, "weight", t.nn.ReLU()),
    "a module class as a parameter": lambda t, lin: setattr(lin, "weight", t.nn.Linear),
    "register_parameter of a module": lambda t, lin: lin.register_parameter("weight", t.nn.ReLU()),
    "a ModuleList as a parameter": lambda t, lin: setattr(lin, "weight", t.nn.ModuleList()),
    "a ParameterList as a parameter": lambda t, lin: setattr(lin, "weight", t.nn.ParameterList()),
    "the Parameter class": lambda t, lin: setattr(lin, "weight", t.nn.Parameter),
    "the Tensor class": lambda t, lin: setattr(lin, "weight", t.Tensor),
    "a dtype": lambda t, lin: setattr(lin, "weight", t.float32),
    "a function": lambda t, lin: setattr(lin, "weight", t.nn.functional.relu),
    "an optimizer": lambda t, lin: setattr(lin, "weight", t.optim.SGD(lin.parameters(), lr=0.1)),
    "a scheduler": lambda t, lin: setattr(
        lin, "weight", t.optim.lr_scheduler.StepLR(t.optim.SGD(lin.parameters(), lr=0.1), 1)
    ),
    "a float64 tensor": lambda t, lin: setattr(lin, "weight", t.zeros(1, dtype=t.float64)),
    "a tensor as a child": lambda t, lin: t.nn.Sequential(t.nn.ReLU()).__setattr__("0", t.ones(2)),
    "a class as a child": lambda t, lin: t.nn.Sequential(t.nn.ReLU()).__setattr__("0", t.Tensor),
}


@pytest.mark.parametrize("case", WRONG_KINDS)
def test_a_value_of_the_wrong_kind_is_named_as_torch_names_it(case: str) -> None:
    """The refusal names the assigned value's type as ``torch.typename`` does, with torch's
    module for an engine class (``'torch.nn.modules.activation.ReLU'``)."""

    def program(t: Any) -> Any:
        lin = t.nn.Linear(2, 2)
        WRONG_KINDS[case](t, lin)

    same(program)
