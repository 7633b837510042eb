"""ownership.autograd.Function: custom ops whose saved tensors are checked like built-ins."""

from __future__ import annotations

import pytest

from support.custom_functions import square
from support.differential import same
from support.gradients import plain


def exp_fn(t):
    class MyExp(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    return MyExp


def test_apply_builds_a_node_named_after_the_class() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = square(t).apply(x)
        return [y, y.grad_fn.name(), y.grad_fn.next_functions, y.is_leaf]

    assert same(program)[1] == "SquareBackward"


def test_backward_through_a_custom_function() -> None:
    def program(t):
        x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = square(t).apply(x.exp())
        (y * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        return [y, plain(x.grad)]

    same(program)


def test_forward_runs_without_recording() -> None:
    def program(t):
        seen = []

        class Probe(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                inner = x * 2
                seen.append([t.is_grad_enabled(), inner.requires_grad, inner.grad_fn])
                return inner

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        x = t.ones(2, requires_grad=True)
        y = Probe.apply(x)
        return [seen, y]

    same(program)


def test_a_modified_saved_input_is_refused() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        y = square(t).apply(a)
        a.add_(1)
        y.sum().backward()

    assert "which is output 0 of Add, is at version 1" in same(program).message


def test_a_modified_saved_output_is_refused_with_the_class_name() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = exp_fn(t).apply(x)
        y.add_(1)
        y.sum().backward()

    assert "which is output 0 of MyExp, is at version 1" in same(program).message


def test_saved_tensors_are_freed_after_backward() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = square(t).apply(x)
        y.sum().backward()
        y.sum().backward()

    same(program)


def test_retain_graph_keeps_saved_tensors() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = square(t).apply(x)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return plain(x.grad)

    same(program)


def test_a_wrong_number_of_gradients_is_refused() -> None:
    def program(t):
        class Bad(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, grad):
                return grad

        Bad.apply(t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)).sum().backward()

    assert same(program).message == (
        "function BadBackward returned an incorrect number of gradients (expected 2, got 1)"
    )


def test_a_gradient_of_the_wrong_shape_is_refused() -> None:
    def program(t):
        class BadShape(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad[:1]

        BadShape.apply(t.ones(2, requires_grad=True)).sum().backward()

    same(program)


def test_none_gradient_for_a_non_tensor_argument_and_ctx_attributes() -> None:
    def program(t):
        class Scale(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.k = k
                return x * k

            @staticmethod
            def backward(ctx, grad):
                return grad * ctx.k, None

        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = Scale.apply(x, 3.0)
        y.sum().backward()
        return [y, plain(x.grad), y.grad_fn.next_functions]

    same(program)


def test_needs_input_grad() -> None:
    def program(t):
        seen = []

        class Mul(t.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                seen.append(ctx.needs_input_grad)
                return grad * b, grad * a

        a = t.tensor([1.0, 2.0], requires_grad=True)
        b = t.tensor([3.0, 4.0])
        Mul.apply(a, b).sum().backward()
        return [seen, plain(a.grad)]

    same(program)


def test_under_no_grad_or_without_grad_inputs_there_is_no_node() -> None:
    def program(t):
        fn = square(t)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.no_grad():
            a = fn.apply(x)
        b = fn.apply(t.tensor([1.0, 2.0]))
        return [a, b]

    same(program)


def test_a_custom_function_inside_a_larger_graph() -> None:
    def program(t):
        x = t.tensor([0.5, -1.0], requires_grad=True)
        w = t.tensor([2.0, 3.0], requires_grad=True)
        h = exp_fn(t).apply(x * w)
        loss = square(t).apply(h.sigmoid()).sum()
        loss.backward()
        return [loss, plain(x.grad), plain(w.grad)]

    same(program)


def _tag(t, name: str, log: list):
    class Tag(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            log.append(name)
            return grad

    return Tag


@pytest.mark.parametrize("shape", ["branches", "late_branch_first", "chain"])
def test_backward_visits_nodes_in_torchs_deterministic_order(shape: str) -> None:
    """Custom nodes log their backward: the order is a topological order, and torch's."""

    def program(t):
        log: list = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        if shape == "branches":
            a = _tag(t, "A", log).apply(x)
            b = _tag(t, "B", log).apply(x)
            c = _tag(t, "C", log).apply(a)
            d = _tag(t, "D", log).apply(b * 2)
            e = _tag(t, "E", log).apply(c + d)
            f = _tag(t, "F", log).apply(a)
            loss = e.sum() + f.sum()
        elif shape == "late_branch_first":
            a = _tag(t, "A", log).apply(x)
            b = _tag(t, "B", log).apply(a.exp())
            c = _tag(t, "C", log).apply(a)
            loss = (c * b).sum()
        else:
            y = x
            for name in "ABCDE":
                y = _tag(t, name, log).apply(y)
            loss = y.sum()
        loss.backward()
        return [log, plain(x.grad)]

    same(program)


@pytest.mark.parametrize(
    "returned", ["number_for_a_number", "array", "list", "float", "bad_shape_then_number"]
)
def test_what_backward_returns_is_checked_as_torch_checks_it(returned: str) -> None:
    """``None`` for an argument that was not a tensor, a tensor or ``None`` for one that was;
    both are checked before the shapes."""

    def program(t):
        import numpy as np

        grads = {
            "number_for_a_number": lambda g: (g, 0),
            "array": lambda g: (np.ones(2), None),
            "list": lambda g: ([1.0, 1.0], None),
            "float": lambda g: (2.0, None),
            "bad_shape_then_number": lambda g: (g[:1].expand(3), 0),
        }[returned]

        class Scale(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, grad):
                return grads(grad)

        Scale.apply(t.ones(2, requires_grad=True), 2).sum().backward()

    assert same(program).kind == "RuntimeError"


def test_an_instance_of_a_function_warns_and_calling_it_is_refused() -> None:
    """The legacy style (``Square()(x)``): torch's DeprecationWarning, then its RuntimeError."""

    def program(t):
        square(t)()(t.ones(2, requires_grad=True))

    assert same(program).message.startswith("Legacy autograd function with non-static forward")
