# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""Custom ``autograd.Function``: saved tensors, ``mark_dirty`` (in place), returned inputs,
``mark_non_differentiable``, undefined gradients (see conftest.py for how the tests are
adapted)."""

from __future__ import annotations

from support.differential import grad_of, same


def m(t, *shape, requires_grad=True):
    """Fixed values of the given shape in place of the original's ``randn``."""
    n = 1
    for s in shape:
        n *= s
    return (t.arange(float(n)).reshape(*shape) * 0.1 - 0.45).requires_grad_(requires_grad)


def test_function_returns_input() -> None:
    """TestAutograd.test_function_returns_input: an input returned as-is gets its own node."""

    def program(t):
        class MyFunction(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        out = []
        for shape in [(1,), ()]:
            v = t.ones(shape, requires_grad=True)
            MyFunction.apply(v).backward()
            out.append(grad_of(v))
            with t.no_grad():
                v.grad.zero_()
            MyFunction.apply(v.clone()).backward()
            out.append(grad_of(v))
        return out

    assert [g.values.tolist() for g in same(program)] == [[2.0], [2.0], 2.0, 2.0]


def test_function_returns_undefined_tensor() -> None:
    """TestAutograd.test_function_returns_undefined_tensor: a None gradient stays None."""

    def program(t):
        class MyFunction(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return None

        x = t.ones(1, requires_grad=True)
        MyFunction.apply(x).backward()
        out = [x.grad]
        MyFunction.apply(x**2).backward()
        out.append(x.grad)
        MyFunction.apply(x).sum().backward()
        out.append(x.grad)
        out.append(t.autograd.grad(MyFunction.apply(x), x, allow_unused=True)[0])
        return out

    assert same(program) == [None, None, None, None]


def test_custom_function_exception() -> None:
    """TestAutograd.test_custom_function_exception: an error raised in backward propagates."""

    def program(t):
        class SimulateBackwardError(t.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                return input.clone()

            @staticmethod
            def backward(ctx, input):
                raise Exception("Simulate error on backward pass")

        t1 = m(t, 3, 3)
        t2 = m(t, 3, 3) * 0.5
        tmp = (t1 + t2) * (t1 + t2)
        t3 = SimulateBackwardError.apply(tmp)
        t3.sum().backward()

    assert "Simulate error on backward pass" in str(same(program))


def test_invalid_gradients() -> None:
    """TestAutograd.test_invalid_gradients: a gradient of the wrong shape is refused."""

    def program(t):
        class MyFunction(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad_output):
                return t.ones(10, dtype=t.float)

        inp = m(t, 5, 5)
        MyFunction.apply(inp).sum().backward()

    assert "expected shape" in same(program).message


def test_save_none_for_backward() -> None:
    """TestAutograd.test_save_none_for_backward: None among saved tensors comes back None."""

    def program(t):
        seen = []

        class MyFn(t.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                ctx.save_for_backward(None, input, None)
                return input * input

            @staticmethod
            def backward(ctx, grad_output):
                n1, input, n2 = ctx.saved_tensors
                seen.extend([n1, n2])
                return 2 * input * grad_output

        x = m(t, 5)
        MyFn.apply(x).sum().backward()
        return [seen, grad_of(x), 2 * x]

    assert same(program)[0] == [None, None]


def test_too_many_grads() -> None:
    """TestAutograd.test_too_many_grads: extra None gradients are ignored."""

    def program(t):
        class MyFn(t.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                return input

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output, None, None

        x = m(t, 5, 5)
        MyFn.apply(x).sum().backward()
        return grad_of(x)

    assert (same(program).values == 1).all()


def test_custom_function_error() -> None:
    """TestAutograd.test_custom_function_error: forward or backward not implemented."""

    def program(t):
        class BadFw(t.autograd.Function):
            @staticmethod
            def backward(ctx, foo):
                return foo

        class BadBw(t.autograd.Function):
            @staticmethod
            def forward(ctx, foo):
                return foo.clone()

        inp = t.ones(1, requires_grad=True)
        out = []
        for action in (lambda: BadFw.apply(inp), lambda: BadBw.apply(inp).sum().backward()):
            try:
                action()
            except (NotImplementedError, RuntimeError) as e:
                out.append((type(e).__name__, str(e)))
        return out

    r = same(program)
    assert r[0][0] == "NotImplementedError" and "must implement either the backward" in r[1][1]


def test_custom_function_local_inplace() -> None:
    """TestAutograd.test_custom_function_local_inplace: in place on a local view in forward."""

    def program(t):
        class MyFn(t.autograd.Function):
            @staticmethod
            def forward(ctx, inp, inplace):
                view = inp.clone()[:3]
                if inplace:
                    view += 2
                return view

            @staticmethod
            def backward(ctx, grad):
                return grad, None

        base = m(t, 10)
        return [MyFn.apply(base, False).grad_fn, MyFn.apply(base, True).grad_fn]

    assert [repr(n) for n in same(program)] == ["<MyFnBackward>", "<MyFnBackward>"]


def test_save_output_nr() -> None:
    """TestAutograd.test_save_output_nr: a saved output keeps its output_nr."""

    def program(t):
        class MultiOutputFn(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:5], x[5:]

            @staticmethod
            def backward(ctx, *grad):
                return t.cat(grad)

        x = m(t, 10)
        _a, b = MultiOutputFn.apply(x)
        return b.output_nr

    assert same(program) == 1


def test_naughty_autograd_function_stashing_ctx() -> None:
    """TestAutograd.test_naughty_autograd_function_stashing_ctx: saved tensors after the graph.

    The stored original expects a RuntimeError; torch 2.13 keeps the node alive through the
    stashed ``ctx`` and returns the saved input, and that is the answer compared.
    """

    def program(t):
        saved_ctx = []

        class Id(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, grad_x):
                saved_ctx.append(ctx)
                return ctx.saved_tensors

        p = t.zeros(1, requires_grad=True)
        loss = Id.apply(p)
        loss.backward(retain_graph=True)
        del loss
        return saved_ctx[0].saved_tensors

    assert same(program)[0].values.tolist() == [0.0]


def test_no_grad_copy() -> None:
    """TestAutograd.test_no_grad_copy: a buffer is handed to at most one leaf without a copy."""

    def program(t):
        ptrs = {}

        class MyFunc(t.autograd.Function):
            @staticmethod
            def forward(ctx, inp1, inp2):
                return inp1 + inp2

            @staticmethod
            def backward(ctx, grad):
                ptrs["grad"] = grad.data_ptr()
                return grad, grad

        class NonContGradFunc(t.autograd.Function):
            @staticmethod
            def forward(ctx, inp1):
                ctx.size = inp1.size()
                return t.tensor([1.0])

            @staticmethod
            def backward(ctx, grad):
                return t.ones(1).expand(ctx.size)

        a = m(t, 5, 6)
        b = m(t, 5, 6) * 0.5
        b = b.detach().requires_grad_()
        NonContGradFunc.apply(MyFunc.apply(a, b)).backward()
        out = [a.grad.data_ptr() == ptrs["grad"], b.grad.data_ptr() == ptrs["grad"]]
        a.grad = b.grad = None
        MyFunc.apply(a, b)[1][0].backward()
        p_a, p_b = a.grad.data_ptr(), b.grad.data_ptr()
        return [*out, p_a == p_b, p_a == ptrs["grad"] or p_b == ptrs["grad"]]

    assert same(program) == [False, False, False, True]
