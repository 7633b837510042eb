"""nn.Buffer: a marked detached alias; assigning one to a module registers it through __setattr__."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def registry(m: Any) -> Any:
    """Where each name landed: parameters, buffers, non-persistent buffers, children."""
    return (
        list(m._parameters),
        list(m._buffers),
        sorted(m._non_persistent_buffers_set),
        list(m._modules),
    )


def test_a_buffer_is_a_marked_detached_alias_not_a_new_kind_of_tensor() -> None:
    def program(t: ModuleType) -> Any:
        data = t.ones(2, requires_grad=True) * 2
        b = t.nn.Buffer(data, persistent=False)
        with t.no_grad():
            data.add_(1)
        return (
            type(b).__name__,
            isinstance(b, t.nn.Buffer),
            isinstance(b, t.Tensor),
            isinstance(data, t.nn.Buffer),
            b.persistent,
            b._is_buffer,
            b.requires_grad,
            b.is_leaf,
            b.grad_fn,
            b.data_ptr() == data.data_ptr(),
            b,
            b._version,
        )

    same(program)


def test_buffer_of_nothing_is_empty_and_persistent_by_default() -> None:
    def program(t: ModuleType) -> Any:
        b = t.nn.Buffer()
        return b, b.persistent, isinstance(b, t.nn.Buffer), isinstance(t.zeros(0), t.nn.Buffer)

    same(program)


def test_a_parameter_is_not_a_buffer_and_a_buffer_of_it_is_a_plain_tensor() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.ones(2))
        b = t.nn.Buffer(p)
        return isinstance(p, t.nn.Buffer), type(b).__name__, b.requires_grad, b.is_leaf

    same(program)


def test_persistent_is_keyword_only() -> None:
    same(lambda t: t.nn.Buffer(t.ones(1), False), raises="TypeError")


def test_assigning_a_buffer_registers_it() -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        data = t.arange(3)
        m.kept = t.nn.Buffer(data)
        m.scratch = t.nn.Buffer(t.zeros(2), persistent=False)
        m.plain = t.zeros(2)
        return (
            registry(m),
            list(m.state_dict()),
            [name for name, _ in m.named_buffers()],
            m.kept,
            m.kept.data_ptr() == data.data_ptr(),
            "plain" in vars(m),
        )

    assert same(program)[0] == ([], ["kept", "scratch"], ["scratch"], [])


def test_a_buffer_decides_persistence_a_plain_tensor_keeps_it() -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        steps = []
        m.b = t.nn.Buffer(t.zeros(1), persistent=False)
        steps.append((registry(m), list(m.state_dict())))
        m.b = t.ones(1)  # a plain tensor: stays non-persistent
        steps.append((registry(m), list(m.state_dict())))
        m.b = t.nn.Buffer(t.ones(1))  # a Buffer: persistent again
        steps.append((registry(m), list(m.state_dict())))
        m.b = None
        steps.append((registry(m), list(m.state_dict()), m.b))
        return steps

    same(program)


def test_a_registered_buffer_assigned_to_another_name_is_a_buffer_there_too() -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        m.a = t.nn.Buffer(t.ones(1), persistent=False)
        m.alias = m.a  # still marked: registered, with its own persistence
        m.copy = m.a.clone()  # a clone is not marked
        return registry(m), list(m.state_dict()), "copy" in vars(m)

    same(program)


def test_buffer_in_a_subclass_init_is_saved_and_loaded() -> None:
    def program(t: ModuleType) -> Any:
        class Counter(t.nn.Module):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                super().__init__()
                self.steps = t.nn.Buffer(t.zeros((), dtype=t.int64))
                self.last = t.nn.Buffer(t.zeros(2), persistent=False)

            def forward(self, x: Any) -> Any:
                self.steps += 1
                self.last = x.detach()
                return x * 2

        c = Counter()
        c(t.ones(2))
        c(t.ones(2))
        other = Counter()
        keys = other.load_state_dict(c.state_dict())
        return registry(c), c.steps, c.steps._version, other.steps, other.last, keys

    same(program)


@pytest.mark.parametrize(
    ("code", "raises"),
    [
        ("m.w = t.nn.Parameter(t.zeros(1)); m.w = t.nn.Buffer(t.zeros(1))", "TypeError"),
        ("m.c = t.nn.ReLU(); m.c = t.nn.Buffer(t.zeros(1))", "TypeError"),
        ("m.x = 3; m.x = t.nn.Buffer(t.zeros(1))", "KeyError"),
        ("setattr(m, 'a.b', t.nn.Buffer(t.zeros(1)))", "KeyError"),
        ("setattr(m, '', t.nn.Buffer(t.zeros(1)))", "KeyError"),
        ("m.train = t.nn.Buffer(t.zeros(1))", "KeyError"),
        ("t.nn.Buffer([1.0, 2.0])", "AttributeError"),
    ],
)
def test_buffer_assignment_errors(code: str, raises: str) -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        exec(code, {"t": t, "m": m})

    same(program, raises=raises)


def test_a_buffer_before_module_init_is_refused() -> None:
    def program(t: ModuleType) -> Any:
        class Early(t.nn.Module):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                self.b = t.nn.Buffer(t.zeros(1))
                super().__init__()

        return Early()

    same(program, raises="AttributeError")


def test_the_mark_survives_deepcopy_but_not_clone_detach_or_a_view() -> None:
    def program(t: ModuleType) -> Any:
        import copy

        m = t.nn.Module()
        m.b = t.nn.Buffer(t.ones(2), persistent=False)
        copied = copy.deepcopy(m)
        return (
            registry(copied),
            isinstance(copied.b, t.nn.Buffer),
            copied.b.persistent,
            [isinstance(x, t.nn.Buffer) for x in (m.b.clone(), m.b.detach(), m.b[0:1])],
        )

    same(program)


@pytest.mark.parametrize("signature", ["without persistent", "with persistent", "args"])
@pytest.mark.parametrize("persistent", [True, False])
def test_a_buffer_assigned_through_a_register_buffer_override(
    signature: str, persistent: bool
) -> None:
    def program(t: ModuleType) -> Any:
        calls: list[Any] = []

        class Old(t.nn.Module):  # type: ignore[name-defined, misc]
            def register_buffer(self, name: str, tensor: Any) -> None:  # type: ignore[override]
                calls.append((name, "old"))
                super().register_buffer(name, tensor)

        class New(t.nn.Module):  # type: ignore[name-defined, misc]
            def register_buffer(self, name: str, tensor: Any, persistent: bool = True) -> None:
                calls.append((name, persistent))
                super().register_buffer(name, tensor, persistent)

        class Loose(t.nn.Module):  # type: ignore[name-defined, misc]
            def register_buffer(self, *args: Any) -> None:  # type: ignore[override]
                calls.append(len(args))
                super().register_buffer(*args)

        kind = {"without persistent": Old, "with persistent": New, "args": Loose}[signature]
        m = kind()
        try:
            m.b = t.nn.Buffer(t.ones(2), persistent=persistent)
            m.b = t.zeros(2)  # a plain tensor over a buffer: the override again
        except RuntimeError as e:
            calls.append(str(e))
        return calls, registry(m), list(m.state_dict())

    same(program)
