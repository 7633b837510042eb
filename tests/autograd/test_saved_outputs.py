"""An op that saves its own result (``tanh``, ``sigmoid``, ``exp``, ``relu``, ``sqrt``,
``reciprocal``, ``pow``) keeps what torch keeps: an alias of the result's memory and version
counter, without its ``grad_fn``.

The engine keeps that alias as its parts (memory, counter, dtype) and makes the tensor only when
it is unpacked or first read; saved-tensor hooks and anomaly mode take the general path. In
every mode the saved result shows torch's values, storage identity, versions, ``grad_fn`` and
errors, before and after the output's ``.data`` is replaced or written in place.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

import ownership
from ownership.core.autograd.saved import SavedTensor

from support.differential import error_of, grad_of, same

OPS: dict[str, Callable[[Any], Any]] = {
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "exp": lambda x: x.exp(),
    "relu": lambda x: x.relu(),
    "sqrt": lambda x: x.sqrt(),
    "reciprocal": lambda x: x.reciprocal(),
    "pow": lambda x: x ** (x * 0 + 2),
}
MODES = ("plain", "hooks", "anomaly")


@contextlib.contextmanager
def mode(t: ModuleType, name: str) -> Iterator[None]:
    """Nothing, saved-tensor hooks that keep the tensor as it is, or anomaly mode."""
    if name == "hooks":
        with t.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            yield
    elif name == "anomaly":
        with t.autograd.set_detect_anomaly(True, check_nan=False):
            yield
    else:
        yield


def shown(op: str, name: str) -> Callable[[ModuleType], Any]:
    """What a learner sees of a saved result: values, identity of memory, history, versions."""

    def program(t: ModuleType) -> Any:
        with mode(t, name):
            x = t.tensor([0.5, 1.5, 2.0], requires_grad=True)
            y = OPS[op](x)
        r = y.grad_fn._saved_result
        facts = [
            r,
            r is y,
            r.grad_fn is y.grad_fn,
            r.untyped_storage() is y.untyped_storage(),
            r.data_ptr() == y.data_ptr(),
            r._version,
            r.stride(),
            y.grad_fn._saved_result is r,
        ]
        y.data = t.zeros(3)  # the saved alias keeps the memory it was saved with
        facts.append(y.grad_fn._saved_result)
        y.sum().backward()
        return [*facts, grad_of(x)]

    return program


@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_a_saved_result_shows_what_torch_shows(op: str, name: str) -> None:
    same(shown(op, name))


def written(op: str, name: str, read_first: bool) -> Callable[[ModuleType], Any]:
    """The result written in place after it was saved (its memory read before or not): the
    version torch reports and its error at backward."""

    def program(t: ModuleType) -> Any:
        with mode(t, name):
            x = t.tensor([0.5, 1.5, 2.0], requires_grad=True)
            y = OPS[op](x)
            node = y.grad_fn
            if read_first:
                y.untyped_storage()
            y.mul_(2)
            errors = [error_of(lambda: node._saved_result), error_of(lambda: y.sum().backward())]
        # torch's message (anomaly mode: the engine lists the writes after it, on more lines)
        return [y._version, *[e if e is None else e.split("\n")[0] for e in errors]]

    return program


@pytest.mark.parametrize("read_first", [False, True])
@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("op", ["tanh", "relu", "exp"])
def test_a_saved_result_written_in_place_refuses_as_torch(
    op: str, name: str, read_first: bool
) -> None:
    same(written(op, name, read_first), warnings=False)


def test_a_saved_result_is_kept_as_parts_until_read() -> None:
    """The saved alias is made at its first read, then kept: the same tensor on every read, over
    the output's memory and counter, as the general constructor made it at save time."""
    x = ownership.tensor([0.5, 1.5], requires_grad=True)
    y = x.tanh()
    saved = y.grad_fn._saved["result"]
    general = SavedTensor(y, True, saved_by="TanhBackward0")
    assert saved.tensor_parts is not None and general.tensor_parts is not None
    for s in (saved, general):
        made = s.tensor
        assert s.tensor is made and s.tensor_parts is None
        assert made is not y and made._grad_fn is None and made._base is None
        assert made.untyped_storage() is y.untyped_storage()
        assert made._version_counter is y._version_counter
        assert made._data is y._data and made.dtype is y.dtype
    assert saved.unpack(y.grad_fn)._data is y._data  # unpacking after the read: the same alias


def test_the_parts_are_what_the_properties_make() -> None:
    """``Tensor._alias_parts`` makes a fresh result's storage and counter as its ``_storage``
    and ``_version_counter`` properties make them (then the properties return those), and
    returns those already made; the alias it makes is the one ``_alias`` makes."""
    x = ownership.tensor([[0.5, 1.5], [2.0, 3.0]], requires_grad=True)
    for fresh in (x * 2, x.t() * 2):  # C and F order
        made = fresh._alias_parts()
        assert made[3] is fresh._storage and made[6] is fresh._version_counter
        assert made[2] is fresh._data and made[4:6] == (0, fresh.dtype)
        again = fresh._alias_parts()
        assert again[3] is made[3] and again[6] is made[6]
        by_parts, by_alias = made[0](*made[1:]), fresh._alias(fresh._version_counter)
        for t in (by_parts, by_alias):
            assert type(t) is ownership.Tensor and t._base is None and t._grad_fn is None
            assert t.untyped_storage() is fresh.untyped_storage()
            assert t._version_counter is fresh._version_counter
            assert t.stride() == fresh.stride() and t.tolist() == fresh.tolist()
    viewed = (x * 2)[1]
    parts = viewed._alias_parts()
    assert parts[4] == viewed.storage_offset() == 2 and parts[3] is viewed._storage
