"""The layouts of gradients the engine makes: ``retain_grad`` clones the first gradient
row-major (``clone(memory_format=torch.contiguous_format)``); a second gradient for a node's
input is summed in place into the first when nobody else sees it, whatever its strides, so the
sum keeps them. A backward formula lays its result out as torch's kernel does (the strides of
size-1 dims included), and a leaf keeps that layout when it obeys the gradient layout contract."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import plain


def test_retain_grad_keeps_a_row_major_copy() -> None:
    """Fuzz programs 325673, 333355: the gradient has the transposed strides of the view."""

    def program(t: Any) -> Any:
        x = t.ones(1, 3, requires_grad=True)
        y = x.transpose(0, -1).view_as(x.transpose(0, -1))
        y.retain_grad()
        y.backward(t.ones_like(y))
        z = t.ones(2, 3, requires_grad=True).t() * 1
        z.retain_grad()
        z.backward(t.ones(3, 2).t().t())
        return [y.grad, y.grad.stride(), z.grad.stride(), x.grad.stride()]

    same(program)


def test_a_second_gradient_is_summed_into_the_strides_of_the_first() -> None:
    """Fuzz program 324073: both gradients of ``t6 * t6`` have strides numpy would not pick."""

    def program(t: Any) -> Any:
        x = t.tensor([[3.0, 1.5], [-0.5, 0.25]], dtype=t.float64, requires_grad=True)
        v = x.swapaxes(0, 1)[:, 1:].expand(2, 2, 1)
        loss = (v * v).mean()
        g, gx = t.autograd.grad(loss, [v, x])
        return [g, g.stride(), gx, gx.stride()]

    same(program)


def test_a_gradient_through_sigmoid_of_a_split_transpose() -> None:
    """Fuzz program 1000457: a (1, 2) leaf of strides (1, 3) gets a gradient of strides (1, 1),
    the layout ``sigmoid_backward``'s iterator gives it (a tie of strides goes to the size-1
    dim), kept because the leaf is not dense and the gradient is contiguous."""

    def program(t: Any) -> Any:
        t1 = t.tensor([[1.5, 1.0, 1.5], [-0.5, 2.0, -0.0]], dtype=t.float32)
        t2 = ((t1.view_as(t1)).t()).split(1)[2]
        t2.requires_grad_()
        l5 = t2.sigmoid().sum()
        l5.backward(retain_graph=True)
        return [plain(t2.grad), t2.grad.stride()]

    same(program)


def _grid(t: Any, *shape: int) -> Any:
    n = 1
    for size in shape:
        n *= size
    return (t.arange(float(n)) - n / 3).view(shape)


SIZE_ONE_LEAVES: dict[str, Any] = {
    "a split of a transpose": lambda t: _grid(t, 2, 3).t().split(1)[2],
    "a transposed column": lambda t: _grid(t, 2, 3)[:, 1:2].t(),
    "a row of a transpose": lambda t: _grid(t, 3, 4).t()[:1],
    "an unsqueezed transpose": lambda t: _grid(t, 2, 3).t().unsqueeze(1),
    "a transpose unsqueezed first": lambda t: _grid(t, 2, 3).t().unsqueeze(0),
    "a transpose unsqueezed last": lambda t: _grid(t, 2, 3).t().unsqueeze(2),
    "a permuted slice": lambda t: _grid(t, 2, 3, 4)[:, 1:2].permute(2, 1, 0),
    "a stepped transposed slice": lambda t: _grid(t, 2, 3, 4)[1:, :, ::2].transpose(0, 2),
    "a transposed first slice": lambda t: _grid(t, 2, 3, 4)[:1].transpose(1, 2),
}

BACKWARDS: dict[str, Any] = {
    "sigmoid": lambda t, x: x.sigmoid(),
    "tanh": lambda t, x: x.tanh(),
    "relu": lambda t, x: x.relu(),
    "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x, 0.1),
    "clamp": lambda t, x: x.clamp(-1, 1),
    "clamp_max": lambda t, x: x.clamp_max(0.5),
    "clamp with tensor bounds": lambda t, x: x.clamp(t.zeros(x.shape), t.ones(x.shape)),
    "clamp_min of a tensor": lambda t, x: x.clamp_min(t.zeros(x.shape)),
    "maximum": lambda t, x: t.maximum(x, t.zeros(x.shape) + 0.5),
    "minimum, other first": lambda t, x: t.minimum(t.zeros(x.shape) + 0.5, x),
    "where": lambda t, x: t.where(x > 0, x, 0.0),
    "max": lambda t, x: x.max(),
    "pow of itself": lambda t, x: (x.abs() + 1) ** x,
    "pow 0": lambda t, x: x**0,
}


@pytest.mark.parametrize("weighted", [False, True], ids=["sum", "weighted sum"])
@pytest.mark.parametrize("op", BACKWARDS.values(), ids=BACKWARDS.keys())
@pytest.mark.parametrize("leaf", SIZE_ONE_LEAVES.values(), ids=SIZE_ONE_LEAVES.keys())
def test_a_backward_formula_lays_its_gradient_out_as_torch_iterator(
    leaf: Any, op: Any, weighted: bool
) -> None:
    """Each backward formula's result is laid out as torch's kernel lays it out (its
    TensorIterator's operands in torch's order, a size-1 dim's stride included; ``max``'s and
    ``pow``'s by an exponent of 0 row-major), and the leaf keeps it when the layout contract
    lets it: the gradient's strides, size-1 dims included, are torch's."""

    def program(t: Any) -> Any:
        x = leaf(t).requires_grad_()
        y = op(t, x)
        (y * t.ones(y.shape) if weighted else y).sum().backward()
        return [x.stride(), y.stride(), plain(x.grad), x.grad.stride()]

    same(program)
