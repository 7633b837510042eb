"""A custom Function that writes into its input in place (``ctx.mark_dirty``), as torch: the
dirty input's version is bumped, a dirty view rebases its base's history through CopySlices so
every input keeps its gradient, and the misuses torch refuses are refused with its words."""

from __future__ import annotations

import pytest

from support.differential import error_of, grad_of, same


def py_add(t, outputs=lambda x, y: x):
    """``x.add_(y)`` marked dirty; ``outputs`` picks what forward returns."""

    class PyAdd(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            x.add_(y)
            return outputs(x, y)

        @staticmethod
        def backward(ctx, *grads):
            return grads[0], grads[0]

    return PyAdd


def test_dirty_view_input_rebases_its_base() -> None:
    """The other input's gradient flows through the base (torch: CopySlices, b.grad [3.])."""

    def program(t):
        a = t.zeros(2, 2, requires_grad=True)
        b = t.ones(1, requires_grad=True)
        x = a.clone()
        r = py_add(t).apply(x[0], b)
        fns = [r.grad_fn, x.grad_fn, x._version, r._version]
        x.backward(t.tensor([[1.0, 2.0], [3.0, 4.0]]))
        return [*fns, grad_of(a), grad_of(b)]

    r = same(program)
    assert r[1].text == "<torch::autograd::CopySlices>" and r[-1].values.tolist() == [3.0]


@pytest.mark.parametrize("requires_grad", [False, True])
def test_mark_dirty_bumps_the_version(requires_grad: bool) -> None:
    def program(t):
        a = t.zeros(2)
        r = py_add(t).apply(a, t.ones(2, requires_grad=requires_grad))
        return [a._version, r is a, r.grad_fn]

    assert same(program)[0] == 2


@pytest.mark.parametrize(
    "case",
    [
        "leaf",
        "not_returned",
        "not_returned_no_grad",
        "view_two_outputs",
        "view_of_leaf",
        "not_an_input_not_returned",
        "not_an_input_not_returned_no_grad",
    ],
)
def test_mark_dirty_misuse_is_refused(case: str) -> None:
    def program(t):
        both = py_add(t, lambda x, y: (x, y + 1))
        if case == "leaf":
            py_add(t).apply(t.zeros(2, requires_grad=True), t.ones(2))
        elif case.startswith("not_returned"):
            py_add(t, lambda x, y: x + 1).apply(
                t.zeros(2), t.ones(2, requires_grad=case == "not_returned")
            )
        elif case.startswith("not_an_input"):

            class DirtyOther(t.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.mark_dirty(x * 2)
                    return x * 3

                @staticmethod
                def backward(ctx, grad):
                    return grad

            DirtyOther.apply(t.ones(2, requires_grad=case == "not_an_input_not_returned"))
        elif case == "view_two_outputs":
            both.apply(t.zeros(2, 2)[0], t.ones(2, requires_grad=True))
        else:
            py_add(t).apply(t.zeros(2, 2, requires_grad=True)[0], t.ones(2))

    assert same(program).kind == "RuntimeError"


def test_dirty_view_input_without_grad_may_return_two_outputs() -> None:
    def program(t):
        return py_add(t, lambda x, y: (x, y + 1)).apply(t.zeros(2, 2)[0], t.ones(2))

    same(program)


def test_trailing_none_gradients_are_ignored_and_an_extra_tensor_is_not() -> None:
    def program(t):
        def make(extra):
            class Twice(t.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return (g * 2, *extra(g))

            return Twice

        x = t.ones(2, requires_grad=True)
        make(lambda g: (None, None)).apply(x).sum().backward()
        y = make(lambda g: (g,)).apply(x).sum()
        return [grad_of(x), error_of(y.backward)]

    same(program)


@pytest.mark.parametrize("missing", ["forward", "backward"])
def test_a_function_without_forward_or_backward(missing: str) -> None:
    def program(t):
        class Half(t.autograd.Function):
            if missing != "forward":

                @staticmethod
                def forward(ctx, x):
                    return x * 2

            if missing != "backward":

                @staticmethod
                def backward(ctx, g):
                    return g

        Half.apply(t.ones(2, requires_grad=True)).sum().backward()

    assert same(program).kind == "NotImplementedError"


@pytest.mark.parametrize("how", ["del", "set"])
def test_grad_fn_is_not_writable(how: str) -> None:
    def program(t):
        x = t.ones(2, requires_grad=True) * 2
        if how == "del":
            del x.grad_fn
        else:
            x.grad_fn = None

    same(program, raises="AttributeError")
