"""torch's ``validate_outputs``: every gradient the engine passes along an edge (a root's, and
each node's result) is checked against the shape the receiving node recorded when it was made (a
``grad_fn`` its output's, a leaf's accumulator the leaf's when it was made). ``.data`` of other
sizes, or a resize in inference mode, leaves that shape behind: a gradient of it passes, one it
expands to is summed down to it, any other is refused, before the node lets its saved tensors
go and before its post hooks run. A leaf's first gradient that breaks its layout contract is
copied into a tensor of the leaf's own sizes (``clone_obey_contract``), with ``copy_``'s error
when it does not fit them."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same


def test_a_node_returns_a_gradient_its_accumulator_refuses() -> None:
    """Fuzz programs 93029, 201078, 202627: the accumulator was made with 4 elements."""

    def program(t: Any) -> Any:
        x = t.tensor([-2.0, -0.0, -1.5, -0.5], requires_grad=True)
        first = (x * x).sum()
        x.data = first
        loss = (x * x).sum()
        return [error_of(loss.backward), grad_of(x), x.shape]

    same(program)


def test_the_leaf_cannot_take_its_recorded_gradient() -> None:
    """Fuzz program 99840: the gradient has the recorded sizes, the leaf's ``.data`` others; the
    copy into the leaf's layout refuses it (a gradient it broadcasts to would be copied)."""

    def program(t: Any) -> Any:
        x = t.tensor([[-1.0, 0.5], [1.5, 1.0], [-0.0, 3.0]], requires_grad=True)
        loss = (x * x).sum()
        x.data = loss.reshape(-1)
        refused = error_of(loss.backward)
        y = t.ones(1, 3, requires_grad=True)
        other = (y * 2).sum()
        y.data = t.zeros(2, 3)
        other.backward()
        return [refused, grad_of(x), grad_of(y), y.grad.stride()]

    same(program)


def test_a_gradient_the_recorded_shape_expands_to_is_summed() -> None:
    def program(t: Any) -> Any:
        x = t.ones(1, requires_grad=True)
        (x * 1).sum()  # x's accumulator is made, with one element
        kept = (x * 1).sum()  # held: the same accumulator
        x.data = t.tensor([1.0, 2.0, 3.0])
        (x * x).sum().backward()
        y = t.ones(1, requires_grad=True)
        held = y * 1
        y.data = t.tensor([1.0, 2.0])
        (g,) = t.autograd.grad((y * 3).sum(), [y], create_graph=True)
        return [grad_of(x), kept, held, g, g.grad_fn]

    same(program)


def test_a_refused_gradient_keeps_the_graph_and_runs_no_post_hook() -> None:
    """torch checks a node's result before its post hooks and before it frees its saved
    tensors: a second backward is refused the same way."""

    def program(t: Any) -> Any:
        x = t.ones(4, requires_grad=True)
        (x * x).sum()
        keep = x * 1  # holds x's accumulator
        x.data = t.tensor(2.0)
        loss = (x * x).sum()
        seen = []
        loss.grad_fn.next_functions[0][0].register_hook(lambda gi, go: seen.append(len(gi)))
        return [error_of(loss.backward), error_of(loss.backward), seen, keep]

    same(program)


def test_a_graph_tensor_resized_in_inference_mode() -> None:
    def program(t: Any) -> Any:
        x = t.ones(3, requires_grad=True)
        y = x * 2
        with t.inference_mode():
            y.resize_(1)
        y.sum().backward()  # one element: it expands to the 3 recorded
        z = x * 2
        with t.inference_mode():
            z.resize_(2, 3)
        return [grad_of(x), error_of(lambda: z.sum().backward())]

    same(program)


def test_a_custom_functions_gradients_are_checked_by_the_same_rule() -> None:
    """A custom backward may return any shape: checked against what each input's node
    recorded (its shape before a ``.data`` change too), only where an input takes a gradient;
    one the recorded shape expands to is summed."""

    def program(t: Any) -> Any:
        class Wrong(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g.expand(2, 3), t.ones(7)

        x = t.ones(3, requires_grad=True)
        Wrong.apply(x, t.ones(3)).sum().backward()  # y takes no gradient: never checked

        class Five(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return t.ones(5)

        z = t.ones(3, requires_grad=True)
        keep = z * 1  # holds z's accumulator, made with 3 elements
        z.data = t.ones(1)
        refused = error_of(lambda: Five.apply(z).sum().backward())
        return [grad_of(x), refused, keep]

    same(program)


def test_amax_restores_its_dims_from_the_gradient_not_self() -> None:
    """Fuzz programs 108783, 307049: ``amax``'s backward restores the reduced dims by the dims it
    saved, counted from the gradient's (torch's ``restore_reduced_dims``), not ``self``'s after a
    ``.data``: a 0-d ``self`` gives a gradient of shape [1], which the accumulator's 3 elements
    refuse; a [3] one broadcasts the mask to [2, 3], which the leaf's copy then refuses."""

    def made_0d(t: Any) -> Any:
        x = t.tensor([3.0, 2.0, 0.25], requires_grad=True)
        y = x.amax(-1)
        x.data = y
        return error_of(lambda: t.autograd.grad(y, [y, x], allow_unused=True))

    def made_1d(t: Any) -> Any:
        x = t.tensor([[-2.0, 0.0, -0.5], [0.0, 1.0, -1.5]], requires_grad=True)
        y = x.amax(-1)
        x.data = t.tensor([2.0, -1.5, -0.5], dtype=t.float64)
        return error_of(lambda: (y * y).mean().backward())

    same(made_0d)
    same(made_1d)


def test_a_roots_gradient_is_cast_to_the_roots_dtype_before_its_hooks() -> None:
    """torch's ``validate_outputs`` of the roots: a float64 gradient given for a float32 root is
    cast before the root's hooks see it (a leaf root: to its accumulator's ``grad_dtype``), and the
    backward computes in float32."""

    def program(t: Any) -> Any:
        seen: list[Any] = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.3
        y.register_hook(lambda g: seen.append((g.dtype, g.clone())))
        y.backward(t.full((2,), 0.1, dtype=t.float64))
        w = t.tensor([1.0, 2.0], requires_grad=True, dtype=t.float64)
        z = w.float() * 3.3
        z.register_hook(lambda g: seen.append((g.dtype, g.clone())))
        (gw,) = t.autograd.grad(z, w, t.full((2,), 0.1, dtype=t.float64))
        leaf = t.tensor([1.0, 2.0], requires_grad=True)
        leaf.register_hook(lambda g: seen.append((g.dtype, g.clone())))
        leaf.backward(t.full((2,), 0.1, dtype=t.float64))
        return [seen, grad_of(x), gw, grad_of(leaf)]

    same(program)


CONSUMERS = {
    "y * y": lambda y: y * y,
    "y.view(1)": lambda y: y.view(1),
    "y.exp()": lambda y: y.exp(),
}


@pytest.mark.parametrize("consume", CONSUMERS.values(), ids=CONSUMERS)
@pytest.mark.parametrize("made", ["before", "after"])
def test_a_gradient_takes_the_dtype_its_node_recorded_whatever_data_gave_since(
    made: str, consume: Any
) -> None:
    """Fuzz 772308: ``.data`` of another dtype on a non-leaf that retains its gradient. torch's
    ``validate_outputs`` casts a gradient to the dtype the receiving node recorded when it made
    the tensor (float32), whether its consumer was made before the ``.data`` or after, a root's
    gradient too; torch's retain_grad hook keeps it as it arrives. It was cast to the tensor's
    new dtype (float64)."""

    def program(t: Any) -> Any:
        x = t.zeros(2, 3, requires_grad=True)
        y = (x * x).sum()
        y.retain_grad()
        early = consume(y).sum()
        y.data = t.tensor(1.0, dtype=t.float64)
        loss = early if made == "before" else consume(y).sum()
        loss.backward(retain_graph=True)
        first = y.grad.clone()
        y.backward(t.tensor(2.0, dtype=t.float64))
        return [first, y.grad, grad_of(x)]

    same(program)


WRITES_OF_ANOTHER_DTYPE = {
    "mul_": lambda t, target, u: target.mul_(u),
    "*=": lambda t, target, u: target.__imul__(u),
    "add_ with alpha": lambda t, target, u: target.add_(u, alpha=2),
    "into a view": lambda t, target, u: target[0].mul_(u),
    "copy_ into a view": lambda t, target, u: target[1:].copy_(u.expand(1)),
    "into an index result": lambda t, target, u: target[[1, 0]].add_(u),
}


@pytest.mark.parametrize("write", WRITES_OF_ANOTHER_DTYPE.values(), ids=WRITES_OF_ANOTHER_DTYPE)
@pytest.mark.parametrize("leaf", [True, False], ids=["a leaf", "a non-leaf"])
def test_an_inplace_nodes_gradients_are_cast_to_each_inputs_dtype(write: Any, leaf: bool) -> None:
    """Fuzz programs 623135 and 625449: a float64 tensor written in place with a float32 operand.
    The operand's gradient arrives in float32, at its hooks and in its ``.grad``; it used to stay
    float64 (the in-place node and its ``CopySlices`` recorded no input dtypes)."""

    def program(t: Any) -> Any:
        w = t.tensor(-0.5, requires_grad=True)
        u = w if leaf else w * 1
        seen: list[Any] = []
        u.register_hook(lambda g: seen.append(g.dtype))
        target = t.tensor([2.0, 3.0], dtype=t.float64, requires_grad=True) * 1
        write(t, target, u)
        (target * t.tensor([1.0, 10.0], dtype=t.float64)).sum().backward()
        return [seen, grad_of(w)]

    same(program)


BROADCASTING_OPS = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: b - a,
    "div": lambda a, b: a / b,
}


@pytest.mark.parametrize("op", BROADCASTING_OPS.values(), ids=BROADCASTING_OPS)
@pytest.mark.parametrize("shape", [(), (1,), (2, 1), (1, 1, 3)], ids=str)
def test_a_broadcast_gradient_is_reduced_to_the_shape_autograd_recorded(
    op: Any, shape: Any
) -> None:
    """Fuzz 672623: ``v.data`` of another shape on a view ``v`` of 3 elements, then ``x * v``
    with ``x`` of shape (2, 3). torch's formula gives ``v`` a (2, 3) gradient and
    ``validate_outputs`` sums it to the 3 elements autograd recorded; the engine summed it to
    ``v``'s new shape in the formula, and then refused it."""

    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -0.0, 2.0], [-2.0, 1.5, 3.0]], requires_grad=True)
        v = x[1]
        v.data = t.full(shape, 2.0)
        loss = op(x, v).sum()
        return t.autograd.grad(loss, [x])

    same(program)
