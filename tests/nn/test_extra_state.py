"""get_extra_state / set_extra_state: the `_extra_state` key of state_dict and load_state_dict."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def with_extra(t: ModuleType, get: bool = True, put: bool = True) -> Any:
    """A module class with a parameter, a buffer, a child and (optionally) extra state."""

    class Counted(t.nn.Module):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.w = t.nn.Parameter(t.ones(2))
            self.register_buffer("steps", t.zeros((), dtype=t.int64))
            self.inner = t.nn.Linear(2, 1)
            self.note = {"seen": 0}
            self.received: list[Any] = []

    if get:

        def get_extra_state(self: Any) -> Any:
            return self.note

        Counted.get_extra_state = get_extra_state
    if put:

        def set_extra_state(self: Any, state: Any) -> None:
            self.received.append(state)
            self.note = state

        Counted.set_extra_state = set_extra_state
    return Counted


def test_extra_state_is_saved_after_own_entries_and_before_children() -> None:
    def program(t: ModuleType) -> Any:
        outer = t.nn.Sequential(with_extra(t)())
        sd = outer.state_dict()
        return list(sd), sd["0._extra_state"], sd["0._extra_state"] is outer[0].note

    assert same(program)[0] == [
        "0.w",
        "0.steps",
        "0._extra_state",
        "0.inner.weight",
        "0.inner.bias",
    ]


def test_extra_state_is_handed_back_as_saved_to_set_extra_state() -> None:
    def program(t: ModuleType) -> Any:
        source = with_extra(t)()
        source.note = {"seen": 3, "weights": t.arange(3)}
        target = with_extra(t)()
        keys = target.load_state_dict(source.state_dict())
        got = target.received
        return keys, len(got), got[0] is source.note, target.note

    same(program)


def test_extra_state_of_any_kind_and_of_a_state_dict_made_by_hand() -> None:
    def program(t: ModuleType) -> Any:
        m = with_extra(t)()
        sd = dict(m.state_dict())
        sd["_extra_state"] = t.tensor([1.5])  # a tensor: given as it is, not copied into
        keys = m.load_state_dict(sd)
        return keys, m.received[0] is sd["_extra_state"], m.received[0]._version

    same(program)


def test_a_module_without_set_extra_state_finds_the_key_unexpected() -> None:
    def program(t: ModuleType) -> Any:
        sd = with_extra(t, put=False)().state_dict()
        lenient = with_extra(t, put=False)().load_state_dict(sd, strict=False)
        strict_error = None
        try:
            with_extra(t, put=False)().load_state_dict(sd)
        except RuntimeError as e:
            strict_error = str(e)
        return lenient, strict_error

    same(program)


def test_a_module_with_set_extra_state_misses_an_absent_key() -> None:
    def program(t: ModuleType) -> Any:
        sd = with_extra(t, get=False)().state_dict()
        m = with_extra(t, get=False)()
        return list(sd), m.load_state_dict(sd, strict=False), m.received

    same(program)
    same(
        lambda t: with_extra(t, get=False)().load_state_dict(
            with_extra(t, get=False)().state_dict()
        ),
        raises="RuntimeError",
    )


@pytest.mark.parametrize("call", ["get_extra_state()", "set_extra_state({})"])
def test_the_base_methods_are_never_meant_to_be_called(call: str) -> None:
    same(lambda t: eval("t.nn.Linear(1, 1)." + call, {"t": t}), raises="RuntimeError")
