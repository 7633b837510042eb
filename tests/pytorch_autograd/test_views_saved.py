# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""Views created in no_grad or by custom Functions, in-place view ops, saved tensors seen from
the graph, expanded ``grad_outputs`` (see conftest.py for how the tests are adapted).

These tests were added to test_autograd.py after the stored revision; they are adapted from a
recent revision of the same file.
"""

from __future__ import annotations

import pytest

from support.differential import error_of, same


def test_detach_then_inplace_raises_in_autograd() -> None:
    """TestAutograd.test_detach_then_inplace_raises_in_autograd: detach shares the version."""

    def program(t):
        x = t.tensor(1.5, requires_grad=True)
        y = x**2
        z = x.detach()
        z.zero_()
        y.backward()

    assert "has been modified by an inplace" in same(program).message


@pytest.mark.parametrize("decorator", [True, False])
def test_set_grad_enabled_wraps(decorator: bool) -> None:
    """TestAutograd.test_set_grad_enabled_wraps: as a decorator it leaves the mode alone."""

    def program(t):
        seen = []
        with t.enable_grad():
            seen.append(t.is_grad_enabled())
            if decorator:

                @t.set_grad_enabled(False)
                def inner_func(x):
                    return x.sin()

            else:

                def inner_func(x):
                    return x.sin()

                obj = t.set_grad_enabled(False)
                seen.append(t.is_grad_enabled())
                inner_func = obj(inner_func)
                seen.append(t.is_grad_enabled())
            seen.append(t.is_grad_enabled())
            x = t.zeros(1, requires_grad=True)
            seen.append(inner_func(x).requires_grad)
        return seen

    r = same(program)
    assert r[-1] is False and r[-2] is True


def test_inplace_not_requires_grad() -> None:
    """TestAutograd.test_inplace_not_requires_grad: custom-Function and unbind views."""

    def program(t):
        class MyFn(t.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.view_as(inp)

            @staticmethod
            def backward(ctx, grad):
                return grad

        def fresh():
            return t.tensor([[0.25, 0.75]]), t.tensor([0.5], requires_grad=True)

        a, b = fresh()
        view_a = MyFn.apply(a)
        out = [error_of(lambda: view_a.add_(b))]
        a, b = fresh()
        view_a = MyFn.apply(a)
        out.append(error_of(lambda: view_a.copy_(b)))
        a, b = fresh()
        view_a = a.unbind()[0]
        out.append(error_of(lambda: view_a.copy_(b)))
        a, b = fresh()
        a.select(1, 0).copy_(b)
        return [*out, a]

    r = same(program)
    assert all("This view was created inside a custom Function" in e for e in r[:2])
    assert "returns multiple views" in r[2] and r[3].requires_grad


_INPLACE_VIEWS = {
    "as_strided_": lambda v: v.as_strided_((1, 0), (2, 2)),
    "transpose_": lambda v: v.transpose_(0, 0),
    "t_": lambda v: v.t_(),
    "squeeze_": lambda v: v.squeeze_(0),
    "unsqueeze_": lambda v: v.unsqueeze_(0),
    "swapdims_": lambda v: v.swapdims_(0, 0),
    "swapaxes_": lambda v: v.swapaxes_(0, 0),
}


@pytest.mark.parametrize("op", sorted(_INPLACE_VIEWS))
def test_autograd_inplace_views_creation_meta(op: str) -> None:
    """TestAutograd.test_autograd_inplace_views_creation_meta: an in-place view op on a view
    made in each grad mode, by a plain view, a multi-output view or a custom Function."""

    def program(t):
        class Func(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.view_as(x)

            @staticmethod
            def backward(ctx, x):
                return x

        fn = _INPLACE_VIEWS[op]
        out = []
        for fn_type in ("normal", "multi_view", "custom"):
            for grad_mode_view in (True, False):
                for grad_mode_iview in (True, False):
                    for requires_grad in (True, False):
                        base = t.ones(2, 3, requires_grad=requires_grad).clone()
                        with t.set_grad_enabled(grad_mode_view):
                            if fn_type == "multi_view":
                                inp = base.unbind()[0]
                            elif fn_type == "custom":
                                inp = Func.apply(base)
                            else:
                                inp = base.view_as(base)
                        with t.set_grad_enabled(grad_mode_iview):
                            error1 = error_of(lambda inp=inp: fn(inp))
                        error2 = None if error1 else error_of(lambda inp=inp: inp.add_(1))
                        out.append((fn_type, error1, error2))
        return out

    same(program)


def test_autograd_print_tensor() -> None:
    """TestAutograd.test_autograd_print_tensor: ``repr`` of leaves, clones, no-grad views."""

    def program(t):
        a = t.ones(1, requires_grad=True)
        out = [repr(a), repr(a.clone())]
        with t.no_grad():
            b = a[:]
            b *= 2
        out.append(repr(b))

        class Func(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, x):
                return x

        out.append(repr(Func.apply(a)))
        return out

    assert same(program) == [
        "tensor([1.], requires_grad=True)",
        "tensor([1.], grad_fn=<CloneBackward0>)",
        "tensor([2.], grad_fn=<Invalid>)",
        "tensor([2.], grad_fn=<FuncBackward>)",
    ]


def test_autograd_inplace_view_of_view() -> None:
    """TestAutograd.test_autograd_inplace_view_of_view: a view of a no_grad view, in place."""

    def program(t):
        x = t.zeros(2)
        with t.no_grad():
            y = x.view(2)
        y.requires_grad_(True)
        z = y.view(2)
        z /= 2

    assert "inside the no_grad block" in same(program).message


def test_autograd_inplace_view_of_view_inference_mode() -> None:
    """TestAutograd.test_autograd_inplace_view_of_view, inference_mode part."""

    def program(t):
        x = t.zeros(2)
        with t.inference_mode():
            y = x.view(2)
        y.requires_grad_(True)
        z = y.view(2)
        z /= 2

    assert "inside the inference_mode" in same(program).message


def test_autograd_multiple_views_python() -> None:
    """TestAutograd.test_autograd_multiple_views_python (test_autograd_complex_views_python in
    the stored revision): a custom Function returning a view of its input."""

    def program(t):
        calls = []

        class ComplexView(t.autograd.Function):
            @staticmethod
            def forward(ctx, a, idx):
                res = a.narrow(0, idx, 1)
                res = a.select(0, idx)
                ctx.save_for_backward(a)
                ctx.idx = idx
                return res

            @staticmethod
            def backward(ctx, grad):
                calls.append(1)
                (a,) = ctx.saved_tensors
                res = t.zeros_like(a)
                res.select(0, ctx.idx).copy_(grad)
                return res, None

        a = t.ones(2, requires_grad=True)
        out = ComplexView.apply(a.clone(), 1)
        out.sum().backward()
        n_calls = len(calls)
        out = ComplexView.apply(a.clone(), 1)
        return [n_calls, a.grad.clone(), error_of(lambda: out.add_(1))]

    r = same(program)
    assert r[0] == 1 and "ComplexView is a view and is being modified inplace" in r[2]


def test_custom_function_saved_tensors() -> None:
    """TestAutograd.test_custom_function_saved_tensors (the public ``saved_tensors`` part)."""

    def program(t):
        def get_fn(save):
            class MyFn(t.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    if save:
                        ctx.save_for_backward(x, None)
                    return x

                @staticmethod
                def backward(ctx, g):
                    return g

            return MyFn

        a = t.tensor([0.5, 1.5], requires_grad=True)
        y = get_fn(True).apply(a)
        saved = y.grad_fn.saved_tensors
        y.sum().backward()
        return [
            saved,
            error_of(lambda: y.grad_fn.saved_tensors),
            get_fn(False).apply(a).grad_fn.saved_tensors,
        ]

    r = same(program)
    assert r[0][1] is None and "after they have already been freed" in r[1] and r[2] == ()


def test_grad_fn_attr_bindings() -> None:
    """TestAutograd.test_grad_fn_attr_bindings (the ``_saved_*`` of mul, stack and tanh)."""

    def program(t):
        a = t.ones(1, requires_grad=True)
        b = t.zeros(1, requires_grad=True)
        out1 = t.stack([a, b], dim=0)
        out2 = (a * 2) * b
        facts = [out2.grad_fn._saved_self, out1.grad_fn._saved_dim]
        out2.sum().backward()
        facts.append(error_of(lambda: out2.grad_fn._saved_self))
        c = t.ones(2, requires_grad=True)
        out = t.tanh(c)
        return [*facts, bool((out == out.grad_fn._saved_result).all())]

    r = same(program)
    assert r[1] == 0 and "after they have already been freed" in r[2] and r[3] is True


@pytest.mark.parametrize(
    "case",
    [
        "diagonal",
        "select",
        "slice",
    ],
)
def test_expanded_v(case: str) -> None:
    """TestAutograd.test_diagonal_expanded_v, test_select_expanded_v, test_slice_expanded_v:
    ``grad_outputs`` with a zero stride."""

    def program(t):
        if case == "diagonal":
            v = t.tensor(0.5).expand(4)
            a = t.ones(4, 4, dtype=t.double, requires_grad=True)
            out = a.diagonal()
        elif case == "select":
            v = t.tensor([0.5, 1.5, 2.5, 3.5]).expand(4, 4)
            a = t.ones(4, 4, 4, requires_grad=True)
            out = a[0]
        else:
            v = t.tensor([[0.5], [1.5], [2.5], [3.5]]).expand(2, 4, 4)
            a = t.ones(4, 4, 4, requires_grad=True)
            out = a[1:3]
        (result,) = t.autograd.grad(out, a, v)
        return result

    same(program)


def test_increment_version() -> None:
    """TestAutograd.test_increment_version (without its inference_mode part)."""

    def program(t):
        out = []
        for a in (t.ones(5, requires_grad=True), t.zeros(5, dtype=t.int)):
            v = a._version
            t.autograd.graph.increment_version(a)
            out.append(a._version - v)
        return out

    assert same(program) == [1, 1]
