"""``F.leaky_relu``, ``F.leaky_relu_`` and ``nn.LeakyReLU`` under torch and ownership: values
(signed zeros, NaN, infinities), dtypes, nodes and what they save, gradients of first and second
order, the in-place form under the in-place contract (its backward refuses a negative slope) and
torch's refusals."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same

VALUES = [-2.0, -0.0, 0.0, 0.5, 3.0, float("nan"), float("inf"), float("-inf")]


@pytest.mark.parametrize("slope", [0.01, 0.1, 0.0, -0.5, 1, 2.5, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_leaky_relu_is_torchs(slope: Any, dtype: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(VALUES, dtype=getattr(t, dtype), requires_grad=True)
        y = t.nn.functional.leaky_relu(x, slope)
        fn = y.grad_fn
        facts = (y, fn.name(), fn._saved_negative_slope, fn._saved_self is x)
        (y * t.arange(1.0, 9.0, dtype=x.dtype)).sum().backward()
        return facts, grad_of(x)

    same(program)


@pytest.mark.parametrize("slope", [0.2, 0.0, -0.5])
def test_leaky_relu_in_place(slope: float) -> None:
    def program(t: Any) -> Any:
        F = t.nn.functional
        leaf = t.tensor([-2.0, 0.0, 2.0], requires_grad=True)
        refused = error_of(lambda: F.leaky_relu(leaf, slope, inplace=True))
        z = leaf * 1
        view = z[1:]
        out = F.leaky_relu_(z, slope)
        facts = (out is z, z, z._version, view, out.grad_fn.name(), out.grad_fn._saved_result)
        backward = error_of(lambda: out.backward(t.ones(3)))
        return refused, facts, backward, grad_of(leaf)

    same(program)


def test_second_order() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([-2.0, 0.5, 3.0], dtype=t.float64, requires_grad=True)
        y = t.nn.functional.leaky_relu(x, 0.3)
        (g,) = t.autograd.grad(
            y, x, t.tensor([1.0, 2.0, 3.0], dtype=t.float64, requires_grad=True), create_graph=True
        )
        facts = (g, g.grad_fn.name(), g.grad_fn._saved_negative_slope)
        g.sum().backward()
        return facts, grad_of(x)

    same(program)


REFUSED: dict[str, Any] = {
    "int tensor": lambda t: t.nn.functional.leaky_relu(t.tensor([1, -2])),
    "bool tensor": lambda t: t.nn.functional.leaky_relu(t.tensor([True])),
    "int tensor in place": lambda t: t.nn.functional.leaky_relu_(t.tensor([1, -2])),
    "str slope": lambda t: t.nn.functional.leaky_relu(t.ones(2), "a"),
    "str slope in place": lambda t: t.nn.functional.leaky_relu_(t.ones(2), "a"),
    "a list": lambda t: t.nn.functional.leaky_relu([1.0]),
}


@pytest.mark.parametrize("call", REFUSED)
def test_refusals_are_torchs(call: str) -> None:
    same(REFUSED[call])


def test_the_module() -> None:
    def program(t: Any) -> Any:
        layer = t.nn.LeakyReLU(0.2, inplace=True)
        x = t.tensor([-1.0, 2.0])
        out = layer(x)
        return (
            repr(t.nn.LeakyReLU()),
            repr(layer),
            out is x,
            x,
            t.nn.LeakyReLU()(t.tensor([-1.0, 2.0])),
            list(layer.state_dict()),
            layer.negative_slope,
        )

    same(program)
