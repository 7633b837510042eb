"""``all`` and ``any`` over all dims or over ``dim`` (an int or a tuple of ints), under torch and
ownership: a bool tensor, ``keepdim`` as every reduction's, an empty tuple reducing nothing (unlike
``sum``'s), torch's errors for a dim out of range or repeated and for a wrong argument."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

ARGUMENTS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "none": ((), {}),
    "dim 1": ((1,), {}),
    "dim=0": ((), {"dim": 0}),
    "dim -1 keepdim": ((-1, True), {}),
    "dim=1 keepdim=True": ((), {"dim": 1, "keepdim": True}),
    "dims (0, 1)": (((0, 1),), {}),
    "dim=(0,)": ((), {"dim": (0,)}),
    "dim=[1, 0] keepdim": ((), {"dim": [1, 0], "keepdim": True}),
    "dims ()": (((),), {}),
    "dim=() keepdim": ((), {"dim": (), "keepdim": True}),
    "dim=None": ((), {"dim": None}),
    "keepdim only": ((), {"keepdim": True}),
    "dim 2 (out of range)": ((2,), {}),
    "dims (0, -2) (repeated)": (((0, -2),), {}),
    "dim 1.0 (wrong type)": ((1.0,), {}),
    "keepdim 1.5 (wrong type)": ((0,), {"keepdim": 1.5}),
}
TENSORS: dict[str, Any] = {
    "float": lambda t: t.tensor([[1.0, 0.0, float("nan")], [3.0, 4.0, -5.0]]),
    "bool": lambda t: t.tensor([[True, False, True], [True, True, True]]),
    "int": lambda t: t.tensor([[1, 0, 2], [0, 0, 0]]),
    "empty": lambda t: t.zeros(2, 0),
    "requires grad": lambda t: t.tensor([[1.0, 0.0], [2.0, 3.0]], requires_grad=True),
}


@pytest.mark.parametrize("tensor", TENSORS)
@pytest.mark.parametrize("arguments", ARGUMENTS)
@pytest.mark.parametrize("name", ["all", "any"])
def test_method(name: str, arguments: str, tensor: str) -> None:
    args, kwargs = ARGUMENTS[arguments]
    make = TENSORS[tensor]
    same(lambda t: getattr(make(t), name)(*args, **kwargs))


@pytest.mark.parametrize("arguments", ["none", "dim 1", "dim=0", "keepdim only", "dims ()"])
@pytest.mark.parametrize("name", ["all", "any"])
def test_zero_dim_tensor(name: str, arguments: str) -> None:
    """A 0-d tensor takes dim 0 or -1 (its one implicit dim), refuses 1."""
    args, kwargs = ARGUMENTS[arguments]
    for value in (0.0, 2.0):
        same(lambda t, v=value: getattr(t.tensor(v), name)(*args, **kwargs))
    same(lambda t: getattr(t.tensor(1.0), name)(-1, True))
    same(lambda t: getattr(t.tensor(1.0), name)(1))


def test_result_is_a_new_tensor_without_history() -> None:
    """The result owns its memory (``x.all(())`` is no view of ``x``) and has no ``grad_fn``."""

    def program(t: Any) -> Any:
        x = t.tensor([[1.0, 0.0], [2.0, 3.0]], requires_grad=True)
        r = x.any(())
        return r, r.requires_grad, r.grad_fn, r._base is None, x.all(dim=(0, 1)).requires_grad

    same(program)


@pytest.mark.parametrize(
    "arguments", ["dim 1", "dims (0, 1)", "dim=[1, 0] keepdim", "dim 1.0 (wrong type)"]
)
@pytest.mark.parametrize("name", ["all", "any"])
def test_function(name: str, arguments: str) -> None:
    args, kwargs = ARGUMENTS[arguments]
    same(lambda t: getattr(t, name)(TENSORS["float"](t), *args, **kwargs))


@pytest.mark.parametrize("name", ["all", "any"])
def test_function_without_dim(name: str) -> None:
    same(lambda t: getattr(t, name)(TENSORS["int"](t)))
