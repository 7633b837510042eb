"""``sin`` and ``cos``: function, method and in place, with torch's nodes, saves and gradients."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.gradients import plain

X = [0.3, -1.2, 2.0, 0.75]


def _saved(fn: Any) -> dict[str, Any]:
    return {a: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")}


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_function_and_method_nodes_saves_and_gradients(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor(X, requires_grad=True)
        y = getattr(t, name)(x)
        z = getattr(x * 2, name)()
        saves = [_saved(y.grad_fn), y.grad_fn._saved_self is x, _saved(z.grad_fn)]
        (y.sum() + z.sum()).backward()
        return [y, z, y.grad_fn.next_functions[0][0].name(), saves, plain(x.grad)]

    same(program)


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_integer_input_gives_float_and_no_grad_records_nothing(name: str) -> None:
    def program(t: ModuleType) -> Any:
        i = getattr(t, name)(t.tensor([0, 1, 2]))
        with t.no_grad():
            n = getattr(t.tensor(X, requires_grad=True), name)()
        return [i, i.dtype, n.grad_fn, n.requires_grad]

    same(program)


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_writing_the_saved_input_breaks_backward(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor(X, requires_grad=True)
        h = x * 1
        y = getattr(h, name)()
        h.add_(1)
        y.sum().backward()

    same(program)


@pytest.mark.parametrize("name", ["sin_", "cos_"])
def test_in_place(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor(X, requires_grad=True)
        h = x * 1
        out = getattr(h, name)()
        fn = h.grad_fn
        facts = [out is h, h, h._version, fn.name(), fn._saved_self, fn._saved_self._version]
        h.sum().backward()
        return [*facts, plain(x.grad)]

    same(program)


@pytest.mark.parametrize("name", ["sin_", "cos_"])
def test_in_place_refusals(name: str) -> None:
    def on_leaf(t: ModuleType) -> Any:
        getattr(t.tensor(X, requires_grad=True), name)()

    def on_integers(t: ModuleType) -> Any:
        getattr(t.tensor([1, 2]), name)()

    same(on_leaf)
    same(on_integers)


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_gradcheck_float64(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor(X, dtype=t.float64, requires_grad=True)
        y = t.tensor(X[::-1], dtype=t.float64, requires_grad=True)
        return [
            t.autograd.gradcheck(lambda a: getattr(a, name)(), (x,)),
            t.autograd.gradcheck(lambda a, b: getattr(a * b, name)() * a, (x, y)),
        ]

    same(program)


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_higher_order_gradients(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor(X, dtype=t.float64, requires_grad=True)
        grads = []
        out = getattr(x, name)().sum()
        for _ in range(3):  # d/dx, d2/dx2, d3/dx3: -sin, -cos, sin, cos in turn
            (g,) = t.autograd.grad(out, x, create_graph=True)
            grads.append([g, g.grad_fn.name()])
            out = g.sum()
        return grads

    same(program)


@pytest.mark.parametrize("name", ["exp_", "sigmoid_", "tanh_"])
def test_in_place_float_functions_refuse_integer_tensors(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1, 2])
        getattr(x, name)()

    same(program)
