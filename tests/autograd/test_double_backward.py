"""Gradients computed with ``create_graph=True`` stay differentiable, with torch's node names.

relu's and nll_loss's backward build a mask in numpy; the gradient still depends on the saved
tensor the mask came from (with a zero derivative), as torch's ``ThresholdBackwardBackward0`` and
``NllLossBackwardBackward0`` do, so ``create_graph`` gives a gradient that requires grad.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import Tolerance, same
from support.gradients import plain

NAMED: dict[str, Any] = {
    "relu": lambda t, x: t.relu(x),
    "F.relu": lambda t, x: t.nn.functional.relu(x),
    "relu_": lambda t, x: (x * 1).relu_(),
    "sigmoid": lambda t, x: x.sigmoid(),
    "sigmoid_": lambda t, x: (x * 1).sigmoid_(),
    "tanh": lambda t, x: x.tanh(),
    "tanh_": lambda t, x: (x * 1).tanh_(),
    "nll_loss": lambda t, x: t.nn.functional.nll_loss(x.reshape(2, 2), t.tensor([1, 0])),
    "nll_loss_sum": lambda t, x: t.nn.functional.nll_loss(
        x.reshape(2, 2), t.tensor([1, 0]), reduction="sum"
    ),
    "nll_loss_none": lambda t, x: t.nn.functional.nll_loss(
        x.reshape(2, 2), t.tensor([1, 0]), reduction="none"
    ),
    "relu_of_sigmoid": lambda t, x: t.relu(x.sigmoid() - 0.6),
    "softmax": lambda t, x: t.softmax(x, 0) * t.tensor([1.0, 2.0, 3.0, 4.0]),
    "log_softmax": lambda t, x: t.log_softmax(x, 0) * t.tensor([1.0, 2.0, 3.0, 4.0]),
    "softmax_rows": lambda t, x: t.softmax(x.reshape(2, 2), 1) * t.tensor([[1.0, 2.0], [3.0, 5.0]]),
    "log_softmax_columns": lambda t, x: t.log_softmax(x.reshape(2, 2), 0)[0],
    "cross_entropy": lambda t, x: t.nn.functional.cross_entropy(x.reshape(2, 2), t.tensor([1, 0])),
    "mse_loss": lambda t, x: t.nn.functional.mse_loss(x, t.zeros(4)),
    "pow3": lambda t, x: x**3,
    "pow0": lambda t, x: x**0 + x,
    "pow_tensor_base": lambda t, x: x ** (x.detach() * 2),
    "pow_tensor_exponent": lambda t, x: (x.detach().abs() + 0.5) ** x,
    "where": lambda t, x: t.where(x > 0, x * x, 0.0),
    "max": lambda t, x: x.max() * x.sum(),
    "clamp": lambda t, x: x.clamp(-0.5, 1.0) * x,
    "maximum": lambda t, x: t.maximum(x, x.detach() * 0) * x,
}

# Differentiable with torch's values; the second-order node has another name here.
UNNAMED: dict[str, Any] = {
    "abs": lambda t, x: x.abs() * 2,
}


def _second_order(t: Any, fn: Any) -> tuple[Any, Any, Any]:
    x = t.tensor([0.5, -1.0, 2.0, -0.25], requires_grad=True)
    y = fn(t, x)
    go = t.ones(y.shape, requires_grad=True) if y.ndim else t.tensor(1.5, requires_grad=True)
    (g,) = t.autograd.grad(y, x, go, create_graph=True)
    gx, ggo = t.autograd.grad((g * g).sum(), (x, go))
    return g, gx, ggo


@pytest.mark.parametrize("op", sorted(NAMED))
def test_second_order_gradients_and_node_names(op: str) -> None:
    def program(t):
        g, gx, ggo = _second_order(t, NAMED[op])
        return [g, g.grad_fn.next_functions[0][0], gx, ggo]

    same(program)


@pytest.mark.parametrize("op", sorted(UNNAMED))
def test_second_order_gradients_of_composite_backwards(op: str) -> None:
    def program(t):
        g, gx, ggo = _second_order(t, UNNAMED[op])
        return [g.detach(), g.requires_grad, plain(gx), plain(ggo)]  # versions: another route

    same(program)


def test_relu_gradient_with_create_graph_requires_grad() -> None:
    """The reported case: a gradient through relu used to come back as a constant."""

    def program(t):
        x = t.tensor([0.5, -1.0], requires_grad=True)
        (g,) = t.autograd.grad(t.relu(x).sum(), x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x)
        return [g, gg]

    same(program)


THIRD: dict[str, Any] = {
    "softmax": lambda t, x: t.softmax(x, 0),
    "log_softmax": lambda t, x: t.log_softmax(x, 0),
    "sigmoid": lambda t, x: x.sigmoid(),
    "tanh": lambda t, x: x.tanh(),
    "relu_times_x": lambda t, x: t.relu(x) * x,
}


@pytest.mark.parametrize("op", sorted(THIRD))
def test_third_order_gradients(op: str) -> None:
    """The backward ops' own backwards are differentiable again (float64: the formulas)."""

    def program(t):
        x = t.tensor([0.5, -1.0, 2.0, -0.25], dtype=t.float64, requires_grad=True)
        w = t.tensor([1.0, 2.0, 3.0, 4.0], dtype=t.float64)
        (g,) = t.autograd.grad((THIRD[op](t, x) * w).sum(), x, create_graph=True)
        (g2,) = t.autograd.grad((g * w).sum(), x, create_graph=True)
        (g3,) = t.autograd.grad((g2 * g2).sum(), x)
        return [g.detach(), g2.detach(), g3]

    same(program, tolerance=Tolerance(computed_in="float64"))  # float64 throughout: the formulas


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target_shape", [(4,), (1,)])
def test_mse_loss_second_order_in_input_target_and_grad_output(
    reduction: str, target_shape: tuple[int, ...]
) -> None:
    def program(t):
        x = t.tensor([0.5, -1.0, 2.0, -0.25], requires_grad=True)
        y = t.full(target_shape, 0.75, requires_grad=True)
        loss = t.nn.functional.mse_loss(x, y, reduction=reduction)
        go = t.full(loss.shape, 1.5, requires_grad=True)
        gx, gy = t.autograd.grad(loss, (x, y), go, create_graph=True)
        second = t.autograd.grad((gx * gx).sum() + (gy * gy).sum(), (x, y, go))
        return [gx, gy, gy.grad_fn.next_functions[0][0], [plain(g) for g in second]]

    same(program, warnings=False)  # a (1,) target warns of broadcasting on both sides


def test_a_create_graph_gradient_used_in_a_later_backward() -> None:
    """A gradient made with create_graph, then differentiated through an ordinary backward:
    no false version error (the caller's grad_outputs are never written), x.grad 1 + 0.05*2."""

    def program(t):
        x = t.tensor([0.5, 2.0], requires_grad=True)
        y = t.tensor([1.5, -0.5], requires_grad=True)
        go = t.ones(2)
        (g,) = t.autograd.grad(x**2 + y * x, x, grad_outputs=go, create_graph=True)
        (x + 0.05 * g).backward(t.ones(2))
        return [plain(x.grad), plain(y.grad), go._version]

    same(program)


@pytest.mark.parametrize("op", ["abs", "pow3"])
def test_second_order_inner_node_names(op: str) -> None:
    """abs's gradient is ``grad * self.sgn()`` (SgnBackward0) and pow's ``grad * (exp *
    self.pow(exp - 1))`` (MulBackward1), as torch's formulas."""

    def program(t):
        x = t.tensor([0.5, -1.0], requires_grad=True)
        y = x.abs() if op == "abs" else x**3
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
        return [g, [fn for fn, _ in g.grad_fn.next_functions]]

    same(program)
