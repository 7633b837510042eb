"""``F.softmax``/``F.log_softmax`` call the method (``input.softmax(dim)``), whose argument
parsing gives every call its errors: the results, nodes and gradients are torch's, for every
form of ``dim`` and ``dtype``; the implicit dim still warns."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest

import ownership

from support.differential import grad_of, same

VALUES = [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0], [float("inf"), 1.0, 1.0], [-2.0, 7.5, 0.5]]


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
