"""A squeeze's gradient is torch's ``unsqueeze_to``: the incoming gradient unsqueezed at each dim
the squeeze dropped, or that gradient itself when it dropped none (not a view of it: fuzz
program 361794, where ``g.add_`` of such a gradient is allowed)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

SQUEEZES: dict[str, Any] = {
    "squeeze()": lambda x: x.squeeze(),
    "squeeze(0)": lambda x: x.squeeze(0),
    "squeeze(-1)": lambda x: x.squeeze(-1),
    "squeeze((0, -1))": lambda x: x.squeeze((0, -1)),
    "squeeze().squeeze()": lambda x: x.squeeze().squeeze(),
}
SHAPES = {"0-d": (), "1": (1,), "3": (3,), "1x3": (1, 3), "3x1": (3, 1), "1x3x1": (1, 3, 1)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("op", SQUEEZES.values(), ids=SQUEEZES.keys())
def test_the_gradient_of_a_squeeze(op: Any, shape: tuple[int, ...]) -> None:
    def program(t: Any) -> Any:
        x = t.ones(shape, requires_grad=True)
        y = op(x)
        (g,) = t.autograd.grad(y, [x], t.ones_like(y))
        out: list[Any] = [g, g._base is None, g.stride()]
        g.add_(y)  # allowed unless g is a view made in backward (no_grad)
        return [*out, g.grad_fn]

    same(program)
