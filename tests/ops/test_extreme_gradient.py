"""``max(dim)``/``min(dim)``'s gradient is torch's ``zeros(sizes).scatter(dim, indices, grad)``:
the incoming gradient at the chosen elements and zeros elsewhere, so an infinite or nan gradient
leaves no nan beside it (fuzz program 601487)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def test_an_infinite_gradient_leaves_zeros_beside_it() -> None:
    def program(t: Any) -> Any:
        t1 = t.zeros((3,), dtype=t.float32, requires_grad=True)
        t2 = t1.max(0).values
        t6 = (t2.expand(3))[2]
        t6.sqrt_()
        with t.set_grad_enabled(False):
            t2.backward(retain_graph=True)
        return t1.grad

    same(program)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("which", ["max", "min"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_chosen_elements_gradient(which: str, keepdim: bool, dtype: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.0, 5.0, 5.0], [7.0, 2.0, -1.0]], dtype=getattr(t, dtype))
        x.requires_grad_()
        v = getattr(x, which)(1, keepdim=keepdim).values
        go = t.tensor([float("inf"), float("nan")], dtype=getattr(t, dtype))
        (g,) = t.autograd.grad(v, x, go.reshape(v.shape))
        return g, g.stride()

    same(program)


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_0d_tensors_gradient_is_a_new_tensor(create_graph: bool) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(3.0, requires_grad=True)
        go = t.tensor(2.0)
        (g,) = t.autograd.grad(x.max(0).values, x, go, create_graph=create_graph)
        return g, g is go, g._base is None

    same(program)


@pytest.mark.parametrize("nan", [False, True], ids=["ties", "nan"])
@pytest.mark.parametrize("which", ["max", "min", "amax", "amin"])
def test_the_whole_tensors_extreme_gradient_is_zeros_filled_in_place(which: str, nan: bool) -> None:
    """``max()``/``min()``'s gradient is torch's ``new_zeros(sizes).masked_fill_(mask, grad /
    count)``: at version 1, and ``MaskedFillBackward1`` when the backward builds a graph."""

    def program(t: Any) -> Any:
        second = float("nan") if nan else 3.0
        x = t.tensor([[1.0, 3.0], [second, 2.0]], requires_grad=True)
        y = getattr(x, which)()
        (g,) = t.autograd.grad(y * y, [x], create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), [x])
        x2 = x.detach().requires_grad_()
        getattr(x2, which)().backward()
        return [g, g._version, g.stride(), gg, x2.grad, x2.grad._version]

    same(program)
