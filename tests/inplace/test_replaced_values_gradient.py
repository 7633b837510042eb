"""The gradient of values an in-place write replaced. ``copy_``, ``fill_``, ``zero_`` (and the
random fills) give the old values torch's ``zeros_like(grad)``, zeros whatever the gradient
holds (an infinite one too), with no history; a write through a view hands its base's gradient
to ``CopySlices``, which copies the op's gradient over the view's region, and passes none to the
old base when the op gives none."""

from __future__ import annotations

from typing import Any

from support.differential import grad_of, same


def test_a_whole_tensor_written_then_square_rooted() -> None:
    """Fuzz program 204911: ``sqrt`` of the copied 0 sends an infinite gradient back."""

    def program(t: Any) -> Any:
        x = t.tensor(-2.0, requires_grad=True)
        y = (x.exp() * 2).sum()
        y[...] = t.tensor(0.0, dtype=t.float64)
        y.sqrt_()
        y.backward()
        return grad_of(x)

    same(program)


def test_writes_through_views_with_an_infinite_gradient() -> None:
    def program(t: Any) -> Any:
        out = []
        for write in (
            lambda v: v.zero_(),
            lambda v: v.fill_(3.0),
            lambda v: v.copy_(t.ones(2)),
            lambda v: v.fill_(t.tensor(1.0)),
        ):
            a = t.ones(4, requires_grad=True)
            b = a * 1
            write(b[:2])
            (b * float("inf")).sum().backward()
            out.append(grad_of(a))
        return out

    same(program)


def test_the_zero_gradients_have_no_history() -> None:
    def program(t: Any) -> Any:
        a = t.ones(2, 3, requires_grad=True)
        b = a.t() * 1
        b.zero_()
        (g,) = t.autograd.grad(b.sum(), [a], create_graph=True)
        s = a.sign()
        (h,) = t.autograd.grad((s * float("inf")).sum(), [a], create_graph=True)
        r = a.floor()
        (k,) = t.autograd.grad((r * float("nan")).sum(), [a], create_graph=True)
        return [g, g.grad_fn, g.stride(), h, h.grad_fn, k]

    same(program)


def test_an_op_that_gives_no_gradient_for_the_view_gives_none_to_the_base() -> None:
    def program(t: Any) -> Any:
        class Double(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return None

        a = t.ones(4, requires_grad=True)
        b = a * 1
        Double.apply(b[:2])
        b.sum().backward()
        return [b.grad_fn, grad_of(a)]

    same(program)
