"""What a custom Function's outputs become, as torch's ``_process_backward_mode_ad`` makes them:
an input returned as-is comes back as a view of itself (``x.view_as(x)``) with the Function's
node, which may not be written in place; ``mark_non_differentiable`` gives outputs without
history (an input so marked comes back as a detached alias); the gradient of an output that got
none is given to backward as zeros, or as ``None`` after ``ctx.set_materialize_grads(False)``."""

from __future__ import annotations

import pytest

from support.differential import grad_of, same


def identity(t, non_differentiable: bool = False):
    """``forward`` returns its input as it is (marked non-differentiable if asked)."""

    class Id(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if non_differentiable:
                ctx.mark_non_differentiable(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return Id


def made(t, requires_grad: bool, view: bool):
    """A leaf, or a view of a fresh tensor (of a non-leaf when ``requires_grad``)."""
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=requires_grad)
    if not view:
        return x, x
    base = x * 1 if requires_grad else t.ones(4)
    return base[1:], base


@pytest.mark.parametrize("view", [False, True], ids=["plain", "view"])
@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad_input", "grad_input"])
@pytest.mark.parametrize("non_differentiable", [False, True], ids=["diff", "non_diff"])
def test_an_input_returned_as_is(non_differentiable: bool, requires_grad: bool, view: bool) -> None:
    """torch returns ``x.view_as(x)`` (or ``x.detach()`` for a marked input that requires
    grad): a new tensor sharing the input's memory and version counter."""

    def program(t):
        x, base = made(t, requires_grad, view)
        y = identity(t, non_differentiable).apply(x)
        root = x if x._base is None else x._base
        facts = [y, y is x, y._is_view(), y._base is x, y._base is root, y.grad_fn, y.is_leaf]
        y.add_(1)
        return [*facts, y, x, x._version, base._version]

    same(program)


def test_an_input_returned_as_is_is_refused_in_place_as_torch_refuses() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        identity(t).apply(x).mul_(2)

    r = same(program)
    assert r.message.startswith("Output 0 of Id is a view and is being modified inplace.")
    assert "because an input was returned as-is" in r.message


def test_an_input_returned_as_is_gets_the_functions_gradient() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = identity(t).apply(x)
        (y * y).sum().backward()
        return [grad_of(x), y.grad_fn.next_functions, y._base is x]

    same(program)


def test_an_input_returned_as_is_under_no_grad_is_a_detached_alias() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.no_grad():
            y = identity(t).apply(x)
        y.add_(1)
        return [y, y._is_view(), y._base is x, x._version]

    same(program)


def two_outputs(t):
    """Returns its input as-is and ``x * 2``: two differentiable outputs."""

    class Two(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x, x * 2

        @staticmethod
        def backward(ctx, ga, gb):
            return ga + 2 * gb

    return Two


@pytest.mark.parametrize("write", ["view", "other"])
def test_a_view_among_two_differentiable_outputs_is_a_multi_output_view(write: str) -> None:
    """torch's creation meta MULTI_OUTPUT_NODE: the view may not be written in place."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a, b = two_outputs(t).apply(x)
        (a if write == "view" else b).mul_(3)
        (a + b).sum().backward()
        return [a, b, grad_of(x)]

    same(program)


def argmax_too(t, materialize: bool = True):
    """Returns ``x * 2``, ``x * 3`` marked non-differentiable, the argmax (an integer tensor,
    marked too) and a number; backward logs what it is given."""

    class WithIndex(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, log):
            ctx.set_materialize_grads(materialize)
            ctx.log = log
            b = x * 3
            i = x.argmax()
            ctx.mark_non_differentiable(b, i)
            return x * 2, b, i, 3

        @staticmethod
        def backward(ctx, ga, gb, gi, gn):
            ctx.log.append([ga, gb, gi, gn])
            return None if ga is None else ga * 2, None

    return WithIndex


@pytest.mark.parametrize("materialize", [True, False])
@pytest.mark.parametrize("use", ["first", "first_and_marked"])
def test_outputs_marked_non_differentiable(materialize: bool, use: str) -> None:
    """The marked outputs have no history; backward gets zeros for them (for every output that
    got no gradient), or ``None`` once ``set_materialize_grads(False)`` was called."""

    def program(t):
        log: list = []
        x = t.tensor([1.0, 3.0, 2.0], requires_grad=True)
        a, b, i, n = argmax_too(t, materialize).apply(x, log)
        facts = [b, i, b.grad_fn, i.grad_fn, a.grad_fn.name(), n]
        loss = a.sum() if use == "first" else a.sum() + b.sum()
        loss.backward()
        return [*facts, log, grad_of(x)]

    same(program)


@pytest.mark.parametrize("materialize", [True, False])
def test_an_unused_output_gets_zeros_or_none(materialize: bool) -> None:
    def program(t):
        log: list = []

        class Both(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                log.append([ga, gb])
                return ga * 2 if gb is None else ga * 2 + gb * 3

        x = t.tensor([1.0, 2.0], requires_grad=True)
        a, _ = Both.apply(x)
        a.sum().backward()
        return [log, grad_of(x)]

    same(program)


@pytest.mark.parametrize("output", ["view_of_input", "leaf_made_in_forward"])
def test_a_marked_output_that_requires_grad(output: str) -> None:
    """A marked view of an input keeps requiring grad through its base (as a view made under
    ``no_grad`` does) and is refused in place; a marked leaf made in forward is detached."""

    def program(t):
        class Marked(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x[1:] if output == "view_of_input" else t.ones(2, requires_grad=True)
                ctx.mark_non_differentiable(out)
                return out, x * 2

            @staticmethod
            def backward(ctx, g_out, grad):
                return grad * 2

        x = t.ones(3, requires_grad=True)
        out, _ = Marked.apply(x)
        facts = [out, out.grad_fn, out._is_view(), out._base is x]
        out.mul_(2)
        return facts

    same(program)


def test_an_integer_input_returned_as_is_is_a_view_without_history() -> None:
    """Not a differentiable type: a view of the input, no node; backward gets integer zeros."""

    def program(t):
        log: list = []

        class WithIndex(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, i):
                return x * 2, i

            @staticmethod
            def backward(ctx, grad, g_index):
                log.append(g_index)
                return grad * 2, None

        x = t.ones(2, requires_grad=True)
        i = t.tensor([1, 2])
        y, j = WithIndex.apply(x, i)
        facts = [j, j._base is i, j._is_view(), j.grad_fn]
        j.add_(1)
        y.sum().backward()
        return [*facts, i, i._version, log, grad_of(x)]

    same(program)


def test_one_input_returned_twice_is_two_views() -> None:
    """Each output is its own view of the input, with its own output number; two
    differentiable outputs, so neither may be written in place."""

    def program(t):
        class Twice(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x, x

            @staticmethod
            def backward(ctx, ga, gb):
                return ga + gb

        x = t.ones(2, requires_grad=True)
        p, q = Twice.apply(x)
        facts = [p is q, p._base is x, q._base is x, p.grad_fn is q.grad_fn, q.output_nr]
        (p + 2 * q).sum().backward()
        facts.append(grad_of(x))
        q.add_(1)
        return facts

    assert same(program).message.startswith("Output 1 of Twice is a view")


def test_an_input_returned_as_is_and_saved_is_saved_as_the_input() -> None:
    def program(t):
        class KeepIt(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * x

        x = t.tensor([1.0, 3.0], requires_grad=True)
        y = KeepIt.apply(x)
        (saved,) = y.grad_fn.saved_tensors
        (y * 2).sum().backward()
        return [saved is x, saved is y, grad_of(x)]

    same(program)


@pytest.mark.parametrize("read", ["grad_fn", "backward"])
def test_writing_into_the_input_of_an_as_is_output_refuses_the_view_later(read: str) -> None:
    """The output is a view of the input: after an in-place write into the input, its history
    cannot be rebuilt, and reading it raises torch's error for a custom Function's view."""

    def program(t):
        a = t.ones(2, requires_grad=True)
        x = a * 1
        y = identity(t).apply(x)
        x.mul_(2)
        if read == "grad_fn":
            return [y._version, y.grad_fn]
        (y * 1).sum().backward()

    assert "its base or another view of its base has been modified" in same(program).message


@pytest.mark.parametrize("value", [3, None, "a"], ids=["int", "None", "str"])
@pytest.mark.parametrize("mark", ["mark_dirty", "mark_non_differentiable"])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_the_marks_accept_only_tensors(mark: str, value, requires_grad: bool) -> None:
    """torch's RuntimeError (its message cut short after "argument "/"got "), whether a node is
    recorded or not; a tensor marked dirty before the refused value has had its version bumped."""

    def program(t):
        class Marks(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                getattr(ctx, mark)(x, value)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad, None

        x = t.ones(2)
        try:
            Marks.apply(x, t.ones(1, requires_grad=requires_grad))
        except RuntimeError as e:
            return [str(e), x._version]

    message, version = same(program)
    assert message.endswith(("argument ", "got ")) and version == (mark == "mark_dirty")
