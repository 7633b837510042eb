# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""Custom ``autograd.Function`` outputs: ``mark_non_differentiable``, one tensor returned
twice, ``mark_dirty`` on leaves and views (see conftest.py for how the tests are adapted)."""

from __future__ import annotations

from support.differential import grad_of, same


def m(t, *shape, requires_grad=True):
    """Fixed values of the given shape in place of the original's ``randn``."""
    n = 1
    for s in shape:
        n *= s
    return (t.arange(float(n)).reshape(*shape) * 0.1 - 0.45).requires_grad_(requires_grad)


def test_mark_non_differentiable() -> None:
    """TestAutograd.test_mark_non_differentiable: a boolean mask output."""

    def program(t):
        class MyFunction(t.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                output = input > 0
                ctx.mark_non_differentiable(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                return (grad_output * 0).to(t.double)

        x = m(t, 5, 5)
        mask = MyFunction.apply(x)
        y = x.masked_fill(mask, 0)
        y.sum().backward()
        return [mask, grad_of(x)]

    assert not same(program)[0].requires_grad


def test_mark_non_differentiable_mixed() -> None:
    """TestAutograd.test_mark_non_differentiable_mixed: zeros flow for the marked output."""

    def program(t):
        seen = []

        class MyFunction(t.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                a = input + 1
                b = input + 2
                ctx.mark_non_differentiable(a)
                return a, b

            @staticmethod
            def backward(ctx, grad_a, grad_b):
                seen.extend([bool((grad_a == 0).all()), bool((grad_b == 1).all())])
                return grad_b

        x = m(t, 5, 5)
        a, b = MyFunction.apply(x)
        b.sum().backward()
        return [a.requires_grad, b.requires_grad, seen, grad_of(x)]

    assert same(program)[:3] == [False, True, [True, True]]


def test_mark_non_differentiable_none() -> None:
    """TestAutograd.test_mark_non_differentiable_none: a None from backward into MulBackward."""

    def program(t):
        class MyFunction(t.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                output = input.clone()
                ctx.mark_non_differentiable(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                return None

        x = m(t, 5, 5)
        r = MyFunction.apply(x * x)
        (r * x).sum().backward()
        return [r, grad_of(x)]

    same(program)


def test_return_duplicate() -> None:
    """TestAutograd.test_return_duplicate: one tensor returned twice (gradcheck only)."""

    def program(t):
        class DoubleDuplicate(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                output = x * 2
                return output, output

            @staticmethod
            def backward(ctx, grad1, grad2):
                return grad1 * 2 + grad2 * 2

        def fn(x):
            a, b = DoubleDuplicate.apply(x)
            return a + b

        x = m(t, 5, 5).double().detach().requires_grad_()
        a, b = DoubleDuplicate.apply(x)
        return [a is b, t.autograd.gradcheck(fn, [x])]

    assert same(program) == [True, True]


def test_return_duplicate_inplace() -> None:
    """TestAutograd.test_return_duplicate_inplace: mark_dirty; leaves and views refused."""

    def program(t):
        class DoubleInplace(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x, x

            @staticmethod
            def backward(ctx, grad1, grad2):
                return grad1 * 2 + grad2 * 2

        def inplace_fn(x):
            a, b = DoubleInplace.apply(x.clone())
            return a + b

        x = m(t, 5, 5).double().detach().requires_grad_()
        a, b = DoubleInplace.apply(x.clone())
        out = [a is b, t.autograd.gradcheck(inplace_fn, [x])]
        for arg in (x, x.clone()[0]):
            try:
                DoubleInplace.apply(arg)
            except RuntimeError as e:
                out.append(str(e))
        return out

    r = same(program)
    assert r[:2] == [True, True] and len(r) == 4


def test_dep_nograd() -> None:
    """TestAutograd.test_dep_nograd: a non-differentiable output fed into another Function."""

    def program(t):
        class F1(t.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                out = t.ones(input.size())
                ctx.mark_non_differentiable(out)
                return input, out

            @staticmethod
            def backward(ctx, grad_output, ignored):
                return grad_output

        class F2(t.autograd.Function):
            @staticmethod
            def forward(ctx, input, ignored):
                return input

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output, None

        x = m(t, 5)
        a, b = F1.apply(x)
        b = b + 1
        c = F2.apply(a, b)
        c.backward(t.ones(c.size()))
        return [a.requires_grad, b.requires_grad, grad_of(x)]

    assert same(program)[:2] == [True, False]
