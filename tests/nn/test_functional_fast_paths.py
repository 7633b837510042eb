"""``F.softmax``/``F.log_softmax`` with a Python int ``dim`` and no ``dtype`` call the op itself
(``ownership.nn.functional.plain_dim``) instead of the method and its argument parsing: the
same result, node and gradient as through the method (the general path), and torch's; every
other call (another ``dim``, a ``dtype``, no tensor) goes through the method, for its errors."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import ownership
from ownership.nn import functional

from support.differential import grad_of, same

VALUES = [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0], [float("inf"), 1.0, 1.0], [-2.0, 7.5, 0.5]]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_an_int_dim_equals_the_method_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch, name: str, dim: int, dtype: str
) -> None:
    chosen: list[bool] = []
    decide = functional.plain_dim

    def spy(*args: Any) -> bool:
        chosen.append(decide(*args))
        return chosen[-1]

    def run() -> tuple[Any, ...]:
        x = ownership.tensor(VALUES, dtype=getattr(ownership, dtype), requires_grad=True)
        out = getattr(ownership.nn.functional, name)(x, dim)
        node = out.grad_fn
        (out * ownership.tensor(np.arange(12.0).reshape(4, 3), dtype=out.dtype)).sum().backward()
        return out._data.copy(), x.grad._data.copy(), out.stride(), node.name(), node._saved_dim

    monkeypatch.setattr(functional, "plain_dim", spy)
    fast = run()
    assert chosen == [True]
    monkeypatch.setattr(functional, "plain_dim", lambda *args: False)
    slow = run()
    for f, s in zip(fast[:2], slow[:2], strict=True):
        assert f.dtype == s.dtype
        np.testing.assert_array_equal(f.view(f"u{f.itemsize}"), s.view(f"u{s.itemsize}"))
    assert fast[2:] == slow[2:]


def test_plain_dim_is_taken_only_for_an_int_dim_without_dtype() -> None:
    x = ownership.ones(2, 3)
    assert functional.plain_dim(x, 1, None)
    assert functional.plain_dim(x, -1, None)
    assert not functional.plain_dim(x, None, None)  # the implicit dim and its warning
    assert not functional.plain_dim(x, True, None)  # a bool: the method's parsing decides
    assert not functional.plain_dim(x, np.int64(1), None)
    assert not functional.plain_dim(x, 1, ownership.float64)
    assert not functional.plain_dim([[1.0, 2.0]], 1, None)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize(
    "call",
    [
        lambda f, x: f(x, 1),
        lambda f, x: f(x, -1),
        lambda f, x: f(x, dim=0),
        lambda f, x: f(x[0], 0),
        lambda f, x: f(x.t(), 1),  # a transposed input: a contiguous result
        lambda f, x: f(x, 2),  # out of range
        lambda f, x: f(x, 1.0),  # not an int
        lambda f, x: f(x, True),
        lambda f, x: f(x, 1, dtype=x.dtype),
        lambda f, x: f(x.sum(), 0),
        lambda f, x: f(x.detach().long(), 1),  # no integer kernel
    ],
)
def test_softmax_calls_agree_with_torch(name: str, call: Any) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor(VALUES, requires_grad=True)
        out = call(getattr(t.nn.functional, name), x)
        if out.requires_grad and out.dim():  # a 0-d one's backward: the test below
            weights = t.arange(1.0, out.numel() + 1.0).reshape(out.shape).to(out.dtype)
            (out * weights).sum().backward()
        return out, out.grad_fn, grad_of(x)

    same(program)


def test_the_implicit_dim_still_warns() -> None:
    x = ownership.ones(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ownership.nn.functional.log_softmax(x)
    assert [str(w.message)[:42] for w in caught] == ["Implicit dimension choice for log_softmax "]


@pytest.mark.parametrize("name", ["log_softmax", "softmax"])
@pytest.mark.parametrize("dim", [0, -1])
def test_the_backward_of_a_0d_softmax_agrees_with_torch(name: str, dim: int) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
        out = getattr(t.nn.functional, name)(x.sum(), dim)
        (out * 2.0).backward()
        return out, grad_of(x)

    same(program)


@pytest.mark.parametrize("name", ["log_softmax", "softmax"])
def test_the_double_backward_of_a_0d_softmax_agrees_with_torch(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor(1.5, requires_grad=True)
        out = getattr(t.nn.functional, name)(x * x, 0)
        (g,) = t.autograd.grad(out * 3.0, x, create_graph=True)
        g.backward()
        return out, g, grad_of(x)

    same(program)
