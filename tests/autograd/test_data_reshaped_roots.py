"""A root whose ``.data`` changed its shape: the engine checks the root's gradient against the
shape autograd recorded (torch's ``validate_outputs``: "invalid gradient at index 0 - got []
but expected shape compatible with [4]"), summing one that shape expands to."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

DATA_RESHAPED: dict[str, Any] = {
    "a leaf given 0-d data (fuzz program 40731)": lambda t, x: _reshaped_leaf(t, x),
    "a leaf given 0-d data, its accumulator gone": lambda t, x: _reshaped_leaf(t, x, keep=False),
    "autograd.grad of a leaf given narrower data": lambda t, x: _narrowed(t, x),
    "a view given 0-d data in inference mode": lambda t, x: _view_given_0d(t, x),
    "a non-leaf given data of one element": lambda t, x: _non_leaf(t, x, (1,)),
    "a non-leaf given data it expands to": lambda t, x: _non_leaf(t, x, (2, 4)),
}


def _reshaped_leaf(t: Any, x: Any, keep: bool = True) -> Any:
    loss = x.sum()  # its graph holds x's accumulator (while ``loss`` lives)
    x.data = (loss if keep else x.sum()).detach()
    x.backward(retain_graph=True)
    return x.grad


def _narrowed(t: Any, x: Any) -> Any:
    first = x.narrow(0, 0, 1)
    x.data = first
    return t.autograd.grad(x, [first], allow_unused=True)


def _view_given_0d(t: Any, x: Any) -> Any:
    v = x.view(4, 1)
    loss = (v * 2).mean()
    with t.inference_mode():
        v.data = loss
    v.backward()
    return x.grad


def _non_leaf(t: Any, x: Any, shape: tuple[int, ...]) -> Any:
    y = x * 2
    y.data = t.ones(shape)
    y.backward(t.ones(shape))
    return x.grad


@pytest.mark.parametrize("case", DATA_RESHAPED.values(), ids=DATA_RESHAPED.keys())
def test_a_roots_gradient_is_checked_against_the_shape_autograd_recorded(case: Any) -> None:
    """``.data`` of another shape leaves the node's recorded shape: the engine checks the root's
    gradient against it (torch's ``validate_outputs``), summing one it expands to."""

    def program(t: Any) -> Any:
        x = t.tensor([0.0, 0.25, 3.0, 0.25], requires_grad=True)
        return case(t, x)

    same(program)


def test_a_leaf_given_0d_data_gets_the_gradient_of_its_recorded_shape() -> None:
    """Fuzz program 44175: the graph was made when the leaf had 4 elements; its gradient has
    them, whatever its ``.data`` is now (no numpy error on the way)."""

    def program(t: Any) -> Any:
        x = t.ones(4, requires_grad=True)
        loss = (x * x).sum()
        x.data = loss.detach()
        loss.tanh().backward()
        return x.grad, x.grad.stride(), x.shape

    same(program)


def test_a_data_of_another_dtype_gives_the_leaf_a_new_accumulator() -> None:
    """torch's ``set_data``: a ``.data`` of another dtype drops the leaf's accumulator, so a graph
    made before ends in an accumulator the leaf no longer has: ``autograd.grad`` of that graph
    finds the leaf unused (fuzz 94464); a graph made after, or a ``.data`` of the same dtype,
    reaches it."""

    def program(t):
        x = t.tensor([[0.25, -1.0, 0.5]], dtype=t.float64, requires_grad=True)
        before = (x.exp() * 2).sum()
        x.data = x.float()
        try:
            t.autograd.grad(before, [x], retain_graph=True)
            refused = None
        except RuntimeError as e:
            refused = str(e)
        after = t.autograd.grad((x * 3).sum(), [x])
        y = t.ones(2, requires_grad=True)
        same_dtype = (y * 2).sum()
        y.data = t.zeros(2)
        return [refused, after, t.autograd.grad(same_dtype, [y])]

    same(program)
