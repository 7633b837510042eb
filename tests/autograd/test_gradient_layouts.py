"""The layouts of gradients the engine makes: ``retain_grad`` clones the first gradient
row-major (``clone(memory_format=torch.contiguous_format)``); a second gradient for a node's
input is summed in place into the first when nobody else sees it, whatever its strides, so the
sum keeps them."""

from __future__ import annotations

from typing import Any

from support.differential import same


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
