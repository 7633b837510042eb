# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""Custom Functions that write in place (``mark_dirty``), on views and not, and that save
their inputs and outputs for a double backward (see conftest.py for how the tests are
adapted)."""

from __future__ import annotations

import gc
import weakref

import pytest

from support.differential import grad_of, same


def adders(t, calls):
    """The Functions of test_autograd_inplace_views_python; each backward counts in ``calls``."""

    class MyAdder(t.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, grad):
            calls.append("MyAdder")
            return grad, grad

    class MyAdderBad(t.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            c = 3 * a
            c.add_(b)
            ctx.mark_dirty(c)
            return c

        @staticmethod
        def backward(ctx, grad):
            grad = 3 * grad
            return grad, grad

    class MyBadAdder(t.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gab):
            calls.append("MyBadAdder")
            return ga + gab, ga + gab

    class MyOutPlaceAdder(t.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a.clone(), a + b

        @staticmethod
        def backward(ctx, ga, gab):
            return ga + gab, ga + 2 * gab

    return MyAdder, MyAdderBad, MyBadAdder, MyOutPlaceAdder


@pytest.mark.parametrize(
    "case",
    [
        "single",
        "single_then_inplace",
        "single_view_input",
        "multiple",
        "multiple_then_inplace",
    ],
)
def test_autograd_inplace_views_python(case: str) -> None:
    """TestAutograd.test_autograd_inplace_views_python: custom backward called once each."""

    def program(t):
        calls = []
        my_adder, _, my_bad_adder, _ = adders(t, calls)
        a = t.ones(2, requires_grad=True)
        b = t.ones(2, requires_grad=True)
        if case == "single":
            c = my_adder.apply(a.clone(), b)
            c.sum().backward()
        elif case == "single_then_inplace":
            c = my_adder.apply(a.clone(), b)
            c += 2
            c.sum().backward()
        elif case == "single_view_input":
            c = my_adder.apply(a.clone().view_as(a), b)
            c.sum().backward()
        else:
            c, d = my_bad_adder.apply(a.clone(), b)
            if case == "multiple_then_inplace":
                c += 2
            (c * d).sum().backward()
        return [calls, grad_of(a), grad_of(b), c.grad_fn]

    assert len(same(program)[0]) == 1


def test_autograd_inplace_views_python_bad_mark_dirty() -> None:
    """TestAutograd.test_autograd_inplace_views_python: marking a non-input dirty warns."""

    def program(t):
        _, my_adder_bad, _, _ = adders(t, [])
        a = t.ones(2, requires_grad=True)
        b = t.ones(2, requires_grad=True)
        return my_adder_bad.apply(a.clone(), b)

    same(program)


def test_autograd_inplace_views_python_view_input_two_outputs() -> None:
    """TestAutograd.test_autograd_inplace_views_python: a dirty view input, two outputs."""

    def program(t):
        _, _, my_bad_adder, _ = adders(t, [])
        a = t.ones(2, requires_grad=True)
        b = t.ones(2, requires_grad=True)
        my_bad_adder.apply(a.clone().view_as(a), b)

    assert "modifies inplace an input that is a view" in same(program).message


def test_autograd_inplace_views_python_dirty_not_returned() -> None:
    """TestAutograd.test_autograd_inplace_views_python: a dirty input must be returned."""

    def program(t):
        _, _, _, my_out_place_adder = adders(t, [])
        a = t.ones(2, requires_grad=True)
        b = t.ones(2, requires_grad=True)
        c, d = my_out_place_adder.apply(a.clone().view_as(a), b)
        return (c * d).sum()

    assert "marked as dirty during the forward method were not returned" in same(program).message


def test_inplace_view_python() -> None:
    """TestAutogradDeviceType.test_inplace_view_python: mark_dirty on views of views."""

    def program(t):
        class PyAdd(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.mark_dirty(x)
                x.add_(y)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad, grad

        def func(root, b):
            x = root.clone()
            PyAdd.apply(x.narrow(1, 2, 2).narrow(0, 1, 2), b)
            PyAdd.apply(x.narrow(1, 0, 2).narrow(0, 1, 2), b)
            return x

        a = (t.arange(16.0, dtype=t.double).reshape(4, 4) * 0.1).requires_grad_()
        b = t.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=t.double, requires_grad=True)
        x = func(a, b)
        x.backward(t.arange(16.0, dtype=t.double).reshape(4, 4))
        return [x, grad_of(a), grad_of(b), t.autograd.gradcheck(func, [a, b])]

    assert same(program)[3] is True


def test_custom_autograd_no_early_free() -> None:
    """TestAutograd.test_custom_autograd_no_early_free: saved input and output, twice
    (the original's gradcheck and gradgradcheck become the two ``grad`` calls it also makes)."""

    def program(t):
        class Double(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x**2
                ctx.save_for_backward(x, y)
                return y

            @staticmethod
            def backward(ctx, grad_output):
                x, _ = ctx.saved_tensors
                return grad_output * 2 * x

        class Double2(Double):
            @staticmethod
            def backward(ctx, grad_output):
                x, y = ctx.saved_tensors
                return grad_output * 2 * y / x

        x = t.tensor(2).double().requires_grad_()
        out = []
        for fn in (Double.apply, Double2.apply):
            y = fn(x)
            out.append(t.autograd.grad(y, x, create_graph=True))
            out.append(t.autograd.grad(y, x))
            out.append(t.autograd.gradcheck(fn, x))
        return out

    r = same(program)
    assert [g[0].values for g in r[0:2] + r[3:5]] == [4.0, 4.0, 4.0, 4.0]


def test_custom_autograd_repeated_grad_grad() -> None:
    """TestAutograd.test_custom_autograd_repeated_grad_grad: double backward, repeated."""

    def program(t):
        def mult1(x):
            return x.prod(dim=-1).prod(dim=-1)

        class Mult(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = mult1(x)
                ctx.save_for_backward(x, y)
                return y

            @staticmethod
            def backward(ctx, grad_output):
                x, y = ctx.saved_tensors
                return (grad_output * y)[:, None, None] / x

        def check_gradgrad_repeated(x, y):
            (gy,) = t.autograd.grad(y[0], x, create_graph=True)
            (ggy_1,) = t.autograd.grad(gy[0, 0, 0], x, retain_graph=True)
            (gy,) = t.autograd.grad(y[0], x, create_graph=True)
            (ggy_2,) = t.autograd.grad(gy[0, 0, 0], x, retain_graph=True)
            return [ggy_1[0, 0, 1], ggy_2[0, 0, 1]]

        x = t.ones(2, 4, 4).requires_grad_()
        return check_gradgrad_repeated(x, mult1(x)) + check_gradgrad_repeated(x, Mult.apply(x))

    r = same(program)
    assert r[0].values == r[1].values and r[2].values == r[3].values


def _dirty_add_one(t):
    """The Func of the mark_dirty tests below: ``inp.add_(1)``, marked dirty, returned."""

    class Func(t.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            inp.add_(1)
            ctx.mark_dirty(inp)
            return inp

        @staticmethod
        def backward(ctx, g_o):
            pass

    return Func


def test_custom_function_mark_output_view_of_intermediate() -> None:
    """TestAutograd.test_custom_function_mark_output_view_of_intermediate (recent revision)."""

    def program(t):
        class Func(t.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                out = inp.clone().view_as(inp)
                ctx.mark_dirty(out)
                return out

            @staticmethod
            def backward(ctx, g_o):
                pass

        a = t.tensor([1.0], requires_grad=True)
        Func.apply(a.clone())

    assert "received a tensor that was not an input." in same(program).message


def test_custom_function_inplace_on_non_default_view() -> None:
    """TestAutograd.test_custom_function_inplace_on_non_default_view (recent revision), with
    ``split(1)`` for the original's ``split_with_sizes([1, 1])``: a multi-output view."""

    def program(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        b, _c = a.clone().split(1, dim=0)
        _dirty_add_one(t).apply(b)

    assert "output of a function that returns multiple view" in same(program).message


def test_custom_function_inplace_on_view_of_leaf() -> None:
    """TestAutograd.test_custom_function_inplace_on_view_of_leaf (recent revision)."""

    def program(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        _dirty_add_one(t).apply(a.view_as(a))

    assert "a view of a leaf Variable that requires grad" in same(program).message


def test_custom_function_saving_mutated_view_no_leak() -> None:
    """TestAutograd.test_custom_function_saving_mutated_view_no_leak (recent revision)."""

    def program(t):
        class Test(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                pass

        def scope():
            x = t.tensor(1.0, requires_grad=True).clone()
            x = x.view_as(x)
            Test.apply(x)
            return weakref.ref(x)

        gc.disable()  # freed by reference counting, as in torch, not by a lucky collection
        try:
            return scope()() is None
        finally:
            gc.enable()

    assert same(program) is True
