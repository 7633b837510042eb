"""``@once_differentiable`` and the saved tensors of a custom Function in a second backward:
torch's ``Error`` node refuses to differentiate a once-differentiable backward's results, and
``ctx.save_for_backward`` refuses what is not a tensor with torch's TypeError."""

from __future__ import annotations

import pytest

from support.differential import grad_of, same


def square(t, once: bool = True):
    """``x * x`` saving ``x``; its backward ``2 * x * grad`` marked ``@once_differentiable``
    (logging whether grad mode was on inside it) unless ``once`` is False."""
    log: list = []

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        log.append([t.is_grad_enabled(), grad.requires_grad])
        return 2 * x * grad

    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

    Square.backward = staticmethod(
        t.autograd.function.once_differentiable(backward) if once else backward
    )
    return Square, log


@pytest.mark.parametrize("once", [True, False])
def test_a_second_backward_through_a_once_differentiable_function(once: bool) -> None:
    """With a gradient that requires grad, the result is an ``Error`` node's output over a
    detached copy; a backward through it raises torch's error (without ``once``, it works)."""

    def program(t):
        fn, log = square(t, once)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = fn.apply(x)
        (gx,) = t.autograd.grad((y * y).sum(), x, create_graph=True)
        facts = [gx, gx.grad_fn, gx.grad_fn.next_functions, log]
        gx.sum().backward()
        return [*facts, grad_of(x)]

    r = same(program)
    if once:
        assert r.message == (
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


@pytest.mark.parametrize("grad", ["plain_gradient", "no_create_graph"])
def test_once_differentiable_returns_plain_results_when_nothing_is_recorded(grad: str) -> None:
    """A gradient that does not require grad (``y.sum()``'s), or grad mode off in backward:
    the results are returned as backward made them, as torch does."""

    def program(t):
        fn, log = square(t)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = fn.apply(x)
        loss = y.sum() if grad == "plain_gradient" else (y * y).sum()
        (gx,) = t.autograd.grad(loss, x, create_graph=grad == "plain_gradient")
        return [gx, gx.grad_fn, log]

    same(program)


def test_once_differentiable_with_a_none_gradient_and_two_results() -> None:
    """A ``None`` result stays ``None`` (an edge ``(None, 0)`` of the Error node); the Error
    node's edges go to the detached copies, so ``x`` is not reached through it."""

    def program(t):
        class Scale(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            @t.autograd.function.once_differentiable
            def backward(ctx, grad):
                return grad * 3, None

        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = Scale.apply(x, 3)
        (gx,) = t.autograd.grad((y * y).sum(), x, create_graph=True)
        facts = [gx, gx.grad_fn.next_functions, Scale.backward.__name__]
        t.autograd.grad(gx.sum(), x)
        return facts

    same(program)


@pytest.mark.parametrize("value", [3, 2.5, "a", [1]], ids=["int", "float", "str", "list"])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_save_for_backward_refuses_what_is_not_a_tensor(value, requires_grad: bool) -> None:
    """torch checks what was saved only when the Function records a node."""

    def program(t):
        class Saves(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(None, x, value)
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad

        return Saves.apply(t.ones(1, requires_grad=requires_grad))

    same(program)


@pytest.mark.parametrize("read", ["saved_tensors", "backward"])
def test_saved_tensors_of_a_graph_freed_by_a_second_order_backward(read: str) -> None:
    """``create_graph=True`` keeps the first graph; a backward of the gradient that goes back
    through the Function (``y * y``'s gradient depends on ``y``) frees it, and its saved
    tensors then raise torch's freed-graph error, read directly or by its backward."""

    def program(t):
        fn, _ = square(t, once=False)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = fn.apply(x)
        (gx,) = t.autograd.grad((y * y).sum(), x, create_graph=True)
        (gxx,) = t.autograd.grad(gx.sum(), x)
        if read == "saved_tensors":
            return [gxx, y.grad_fn.saved_tensors]
        y.sum().backward()

    assert same(program).message.startswith("Trying to backward through the graph a second time")


def test_once_differentiable_gradient_accumulated_by_backward_with_create_graph() -> None:
    """``backward(create_graph=True)`` puts the Error node's output in ``x.grad``; a backward
    through ``x.grad`` raises."""

    def program(t):
        fn, _ = square(t)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (fn.apply(x) ** 2).sum().backward(create_graph=True)
        facts = [x.grad, x.grad.grad_fn]
        x.grad.sum().backward()
        return facts

    assert same(program).kind == "RuntimeError"


def test_once_differentiable_with_grad_outputs_that_require_grad() -> None:
    """The Error node does not lead back to the given ``grad_outputs`` either."""

    def program(t):
        fn, log = square(t)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        v = t.ones(2, requires_grad=True)
        (gx,) = t.autograd.grad(fn.apply(x), x, grad_outputs=v, create_graph=True)
        (gv,) = t.autograd.grad(gx.sum(), v, allow_unused=True)
        return [gx, gx.grad_fn, gv, log]

    same(program)
