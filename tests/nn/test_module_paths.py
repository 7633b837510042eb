"""get_buffer and set_submodule: dotted paths into a module tree, with torch's errors."""

from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def net(t: ModuleType) -> Any:
    """Sequential(Linear, Sequential(BatchNorm1d, ReLU)), with a plain tensor attribute."""
    nn = t.nn
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.BatchNorm1d(2), nn.ReLU()))
    model[1][0].plain = t.zeros(2)
    return model


def test_get_buffer_returns_the_registered_buffer_itself() -> None:
    def program(t: ModuleType) -> Any:
        model = net(t)
        return [
            model.get_buffer(name) is buf for name, buf in model.named_buffers()
        ], model.get_buffer("1.0.num_batches_tracked")

    same(program)


@pytest.mark.parametrize(
    "target", ["1.0.plain", "1.0.weight", "1.0.nothing", "1.2.running_mean", "0.weight.x", ""]
)
def test_get_buffer_errors(target: str) -> None:
    same(lambda t: net(t).get_buffer(target), raises="AttributeError")


def test_set_submodule_replaces_or_adds_a_child_through_setattr() -> None:
    def program(t: ModuleType) -> Any:
        model = net(t)
        replacement = t.nn.Tanh()
        model.set_submodule("1.1", replacement)
        model.set_submodule("1.extra", t.nn.Sigmoid())
        model.set_submodule("0", t.nn.Linear(2, 3), strict=True)
        model.set_submodule("top", t.nn.ReLU())
        return (
            repr(model),
            model[1][1] is replacement,
            list(model[1]._modules),
            list(model.state_dict()),
        )

    same(program)


def test_set_submodule_refuses_a_child_registered_as_none() -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        m.child = t.nn.ReLU()
        m.child = None  # still a registered name, but None is not a module
        m.set_submodule("child", t.nn.ReLU())

    same(program, raises="AttributeError")


@pytest.mark.parametrize(
    ("code", "raises"),
    [
        ("model.set_submodule('', t.nn.ReLU())", "ValueError"),
        ("model.set_submodule('0', 3)", "ValueError"),
        ("model.set_submodule('', 3)", "ValueError"),
        ("model.set_submodule('9.x', 3)", "ValueError"),
        ("model.set_submodule('9.x', t.nn.ReLU())", "AttributeError"),
        ("model.set_submodule('1.new', t.nn.ReLU(), strict=True)", "AttributeError"),
        ("model.set_submodule('0.weight', t.nn.ReLU())", "AttributeError"),
        ("model.set_submodule('1.0.plain', t.nn.ReLU())", "AttributeError"),
        ("model.set_submodule('0.weight.x', t.nn.ReLU())", "AttributeError"),
    ],
)
def test_set_submodule_errors(code: str, raises: str) -> None:
    def program(t: ModuleType) -> Any:
        exec(code, {"t": t, "model": net(t)})

    same(program, raises=raises)


def test_a_refused_set_submodule_changes_nothing() -> None:
    def program(t: ModuleType) -> Any:
        model = net(t)
        before = repr(model)
        with contextlib.suppress(AttributeError):
            model.set_submodule("0.weight", t.nn.ReLU())
        return repr(model) == before, type(model[0].weight).__name__

    same(program)


def test_cpu_keeps_every_tensor_and_its_version() -> None:
    def program(t: ModuleType) -> Any:
        model = net(t)
        model[0].weight.grad = t.ones(2, 2)
        before = [*model.parameters(), *model.buffers()]
        versions = [x._version for x in before]
        returned = model.cpu()
        after = [*model.parameters(), *model.buffers()]
        return (
            returned is model,
            [a is b for a, b in zip(before, after, strict=True)],
            [x._version for x in after] == versions,
            model[0].weight.grad,
        )

    same(program)
