# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""Grad modes and their decorators: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` on
blocks, functions, generators and coroutines (see conftest.py for how the tests are adapted).

Where the original asserts ``torch.is_grad_enabled()`` inside a function, the program records
the mode in a list ``seen`` and returns it, so both engines must agree on every observation.
"""

from __future__ import annotations

import pytest

from support.differential import same


@pytest.mark.parametrize(
    "form",
    ["no_grad()(adder)", "no_grad(adder)"],
)
def test_no_grad(form: str) -> None:
    """TestAutograd.test_no_grad: block, decorator with and without parentheses, nesting."""

    def program(t):
        x = t.ones(5, 5, requires_grad=True)
        y = t.ones(5, 5) * 4
        with t.no_grad():
            w = x + y

        def adder(x, y):
            return x + y

        adder = t.no_grad()(adder) if form == "no_grad()(adder)" else t.no_grad(adder)
        z = adder(x, y)
        out = [w.requires_grad, w.grad_fn, z.requires_grad, z.grad_fn]
        for root in (w, z):
            try:
                root.backward(t.ones(5, 5))
            except RuntimeError as e:
                out.append(str(e))
        with t.no_grad():
            out.append(t.is_grad_enabled())
            w = adder(x, y)
            out.append(t.is_grad_enabled())
        return [*out, t.is_grad_enabled()]

    r = same(program)
    assert r[:4] == [False, None, False, None] and r[-3:] == [False, False, True]


def test_enable_grad_decorator_no_paren() -> None:
    """TestAutograd.test_enable_grad_decorator_no_paren."""

    def program(t):
        x = t.ones(1, requires_grad=True)

        @t.enable_grad
        def doubler(x):
            return x * 2

        with t.no_grad():
            z = doubler(x)
        return z

    assert same(program).requires_grad


def test_no_grad_python_function() -> None:
    """TestAutograd.test_no_grad_python_function: a custom Function respects no_grad."""

    def program(t):
        x = t.ones(5, 5, requires_grad=True)

        class MyOp(t.autograd.Function):
            @staticmethod
            def forward(self, x):
                return x + 1

            @staticmethod
            def backward(self, dy):
                return dy

        with t.no_grad():
            y = MyOp.apply(x)
        return y

    assert not same(program).requires_grad


def test_set_grad_enabled() -> None:
    """TestAutograd.test_set_grad_enabled: as a block, and called as a function inside one."""

    def program(t):
        x = t.tensor([1.0], requires_grad=True)
        with t.set_grad_enabled(False):
            y1 = x * 2
        with t.set_grad_enabled(True):
            y2 = x * 2
        with t.set_grad_enabled(False):
            t.set_grad_enabled(True)
            y3 = x * 2
        return [y1, y2, y3, t.is_grad_enabled()]

    r = same(program)
    assert [y.requires_grad for y in r[:3]] == [False, True, True] and r[3] is True


def test_no_grad_assignment() -> None:
    """TestAutograd.test_no_grad_assignment: writing into a leaf under no_grad."""

    def program(t):
        x = t.arange(25.0).reshape(5, 5).requires_grad_()
        y = t.full((5,), -1.0)
        with t.no_grad():
            x[0] = y
        return [x, x.grad_fn]

    r = same(program)
    assert r[0].requires_grad and r[1] is None and r[0].version == 1


def test_no_grad_modifies_version() -> None:
    """TestAutograd.test_no_grad_modifies_version: ``x *= 2`` under no_grad is still seen."""

    def program(t):
        x = t.linspace(-1.0, 1.0, 5, requires_grad=True)
        y = t.linspace(0.5, 2.5, 5, requires_grad=True)
        z = (x * y).sum()
        with t.no_grad():
            x *= 2
        z.backward()

    assert "modified by an inplace operation" in same(program).message


def test_no_grad_input() -> None:
    """TestAutograd.test_no_grad_input: a custom Function applied under no_grad."""

    def program(t):
        class MyFunction(t.autograd.Function):
            @staticmethod
            def forward(self, x):
                return x

            @staticmethod
            def backward(self, grad_output):
                return grad_output

        x = t.linspace(-1.0, 1.0, 5, requires_grad=True)
        with t.no_grad():
            y = MyFunction.apply(x)
        return [x.requires_grad, y.grad_fn]

    assert same(program) == [True, None]


def test_grad_mode_restored_reentrant() -> None:
    """TestAutograd.test_grad_mode_restored_reentrant: grad inside backward restores the mode."""

    def program(t):
        seen = []

        class MyFunction(t.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.clone()

            @staticmethod
            def backward(ctx, go):
                original = t.is_grad_enabled()
                with t.enable_grad():
                    seen.append(t.is_grad_enabled())
                    foo = t.full(go.size(), 0.5, requires_grad=True)
                    (grad,) = t.autograd.grad(foo**3, foo, grad_outputs=go)
                    seen.append(t.is_grad_enabled())
                seen.append(t.is_grad_enabled() == original)
                seen.append(original)
                return grad

        inp = t.tensor([0.1, 0.2, 0.3], requires_grad=True)
        MyFunction.apply(inp).sum().backward()
        MyFunction.apply(inp).sum().backward(create_graph=True)
        return [*seen, inp.grad.clone()]

    # warnings=False: torch warns about backward(create_graph=True) once per process, so whether
    # it warns here depends on test order; test_backward_create_graph_warns checks that warning.
    r = same(program, warnings=False)
    assert r[:8] == [True, True, True, False, True, True, True, True]


def test_custom_function_return_view_in_nograd() -> None:
    """TestAutograd.test_custom_function_return_view_in_nograd."""

    def program(t):
        class Alias(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:]

            @staticmethod
            def backward(ctx, gx):
                return gx

        inp = t.tensor([0.25, 0.75], requires_grad=True)
        with t.no_grad():
            output = Alias.apply(inp)
        with t.no_grad():
            expected_output = inp[:]
        out = [output.requires_grad, expected_output.requires_grad]
        try:
            output.zero_()
        except RuntimeError as e:
            out.append(str(e))
        return out

    r = same(program)
    assert "A view was created in no_grad mode and is being modified inplace" in r[2]


@pytest.mark.parametrize(
    ("grad_mode", "requires_grad"), [(True, False), (True, True), (False, True), (False, False)]
)
def test_autograd_views_codegen(grad_mode: bool, requires_grad: bool) -> None:
    """TestAutograd.test_autograd_views_codegen: view_as and unbind under each grad mode."""

    def program(t):
        out = []
        for make in ("view_as", "unbind"):
            inp = t.tensor([0.5, 1.5], requires_grad=requires_grad).clone()
            with t.set_grad_enabled(grad_mode):
                views = [inp.view_as(inp)] if make == "view_as" else list(inp.unbind())
            for v in views:
                out.append(v._base is not None)  # the original asks v._is_view()
                try:
                    v.add_(1)
                    out.append(None)
                except RuntimeError as e:
                    out.append(str(e))
        return out

    r = same(program)
    assert r[0] is True and (r[1] is None) == (grad_mode or not requires_grad)


def test_simple_reentrant() -> None:
    """TestAutograd.test_simple_reentrant: backward called inside a Function's backward."""

    def program(t):
        y_data = t.tensor([[0.5, -1.0], [2.0, 3.0]])

        class Reenter(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                with t.enable_grad():
                    ctx.x = x.detach().requires_grad_()
                    ctx.y = y_data.clone().requires_grad_()
                    ctx.output_var = ctx.x * ctx.y
                return ctx.output_var.detach()

            @staticmethod
            def backward(ctx, grad_output):
                with t.enable_grad():
                    ctx.output_var.sum().backward()
                return ctx.x.grad * grad_output

        x = t.ones(2, 2, requires_grad=True)
        out = Reenter.apply(x)
        out.sum().backward()
        return x.grad.clone()

    assert same(program).values.tolist() == [[0.5, -1.0], [2.0, 3.0]]
