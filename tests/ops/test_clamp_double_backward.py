"""The clamp family's backward: torch's is ``where(kept, grad, 0)``, so the gradient
differentiated again has the node ``WhereBackward0`` (saving the condition, no edge for the zero),
and a gradient that is inf where the input was clamped gives 0 there. ``clamp`` with tensor bounds
is ``ClampBackward0``, which gives each bound its gradient (where the input passed it)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import saved_values

CASES: dict[str, Any] = {
    "clamp both": lambda t, x, b: x.clamp(0.0, 1.0),
    "clamp min=": lambda t, x, b: x.clamp(min=0.0),
    "clamp max=": lambda t, x, b: t.clamp(x, max=1),
    "clamp_ non-leaf": lambda t, x, b: (x * 1).clamp_(0.0, 1.0),
    "clamp_min number": lambda t, x, b: x.clamp_min(0.0),
    "clamp_max number": lambda t, x, b: x.clamp_max(1.0),
    "clamp_min tensor": lambda t, x, b: x.clamp_min(b),
    "clamp_max tensor": lambda t, x, b: x.clamp_max(b),
    "clamp_min_ tensor": lambda t, x, b: (x * 1).clamp_min_(b),
    "clamp tensor min=": lambda t, x, b: x.clamp(min=b),
    "clamp tensor both": lambda t, x, b: t.clamp(x, b - 1, b),
    "clamp tensor max= broadcast": lambda t, x, b: x.clamp(max=b[1:2]),
    "clamp tensor min above max": lambda t, x, b: x.clamp(b, b - 1),
    "clamp_ tensor both": lambda t, x, b: (x * 1).clamp_(b - 1, b),
    "clamp_ tensor max=": lambda t, x, b: (x * 1).clamp_(max=b),
    # a 0-d tensor with a number: torch's Number overload, ClampBackward1
    "clamp 0-d tensor and number": lambda t, x, b: x.clamp(min=t.tensor(0.0), max=1),
    "clamp_ 0-d tensor and number": lambda t, x, b: (x * 1).clamp_(t.tensor(0.0), 1.0),
}


def _inputs(t: Any) -> tuple[Any, Any]:
    x = t.tensor([-1.0, 0.5, 2.0, 1.0], requires_grad=True)
    b = t.tensor([0.0, 1.0, 1.0, 1.0], requires_grad=True)
    return x, b


@pytest.mark.parametrize("case", CASES)
def test_the_gradient_of_a_clamp_is_a_where(case: str) -> None:
    def program(t: Any) -> Any:
        x, b = _inputs(t)
        y = CASES[case](t, x, b)
        (g,) = t.autograd.grad((y * y).sum(), x, create_graph=True)
        node = g.grad_fn
        edges = [None if n is None else n.name() for n, _ in node.next_functions]
        second = t.autograd.grad(g.sum(), (x, b), allow_unused=True)
        return g, node, edges, saved_values(node), second

    same(program)


@pytest.mark.parametrize("case", CASES)
def test_an_inf_gradient_where_clamped_gives_zero(case: str) -> None:
    def program(t: Any) -> Any:
        x, b = _inputs(t)
        y = CASES[case](t, x, b)
        inf = float("inf")
        y.backward(t.tensor([inf, 1.0, -inf, 2.0]))
        return x.grad, b.grad

    same(program)


@pytest.mark.parametrize("case", CASES)
def test_the_clamp_node_its_saved_values_and_its_gradients(case: str) -> None:
    def program(t: Any) -> Any:
        x, b = _inputs(t)
        y = CASES[case](t, x, b)
        fn = y.grad_fn
        saved = saved_values(fn)
        (y * t.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return y, fn, fn.next_functions, saved, x.grad, b.grad

    same(program)
