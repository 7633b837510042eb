"""A squeeze's gradient is torch's ``unsqueeze_to``: the incoming gradient unsqueezed at each
dim of size 1 that was dropped, or that gradient itself when none was (``squeeze(0)`` of a
``(3,)`` tensor drops nothing: its gradient is passed on, not a view of it; fuzz seed 349290).
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

SQUEEZES: dict[str, Any] = {
    "squeeze()": lambda x: x.squeeze(),
    "squeeze(0)": lambda x: x.squeeze(0),
    "squeeze(-1)": lambda x: x.squeeze(-1),
    "squeeze(1), of size 3": lambda x: x.squeeze(1),
    "squeeze((0, 2))": lambda x: x.squeeze((0, 2)),
    "squeeze((2, 0))": lambda x: x.squeeze((2, 0)),
    "squeeze((1,)), of size 3": lambda x: x.squeeze((1,)),
    "squeeze_()": lambda x: x.clone().squeeze_(),
    "squeeze_(2)": lambda x: x.clone().squeeze_(2),
    "squeeze_(1), of size 3": lambda x: x.clone().squeeze_(1),
    "squeeze_((0, 2))": lambda x: x.clone().squeeze_((0, 2)),
}


@pytest.mark.parametrize("squeeze", SQUEEZES.values(), ids=SQUEEZES.keys())
def test_a_squeezes_gradient_is_unsqueezed_where_it_dropped_a_dim(squeeze: Any) -> None:
    def program(t: Any) -> Any:
        x = t.ones(1, 3, 1, requires_grad=True)
        y = squeeze(x)
        go = t.arange(3.0).reshape(y.shape)
        (g,) = t.autograd.grad(y, x, go)
        return [y.grad_fn, g, g.stride(), g._base is None, g._base is go]

    same(program)


def test_the_gradient_of_a_squeeze_that_drops_nothing_is_passed_on() -> None:
    def program(t: Any) -> Any:
        x = t.ones(3, requires_grad=True)
        y = x.squeeze(0)[0]  # select's gradient is a new tensor, squeeze passes it on
        g, _ = t.autograd.grad(y, [x, y], retain_graph=True, allow_unused=True)
        h = g[1]
        go = t.ones(3)
        (k,) = t.autograd.grad(x.squeeze(0), x, go)
        return [g, g._base is None, h._base is g, k._base is None, k is go]

    same(program)


SQUEEZES_OF_SHAPES: dict[str, Any] = {
    "squeeze()": lambda x: x.squeeze(),
    "squeeze(0)": lambda x: x.squeeze(0),
    "squeeze(-1)": lambda x: x.squeeze(-1),
    "squeeze((0, -1))": lambda x: x.squeeze((0, -1)),
    "squeeze().squeeze()": lambda x: x.squeeze().squeeze(),
}
SHAPES = {"0-d": (), "1": (1,), "3": (3,), "1x3": (1, 3), "3x1": (3, 1), "1x3x1": (1, 3, 1)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("op", SQUEEZES_OF_SHAPES.values(), ids=SQUEEZES_OF_SHAPES.keys())
def test_the_gradient_of_a_squeeze_can_be_written_unless_a_view(
    op: Any, shape: tuple[int, ...]
) -> None:
    """Fuzz program 361794: ``g.add_`` of a gradient that is no view is allowed."""

    def program(t: Any) -> Any:
        x = t.ones(shape, requires_grad=True)
        y = op(x)
        (g,) = t.autograd.grad(y, [x], t.ones_like(y))
        out: list[Any] = [g, g._base is None, g.stride()]
        g.add_(y)  # allowed unless g is a view made in backward (no_grad)
        return [*out, g.grad_fn]

    same(program)
