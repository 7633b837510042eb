"""Custom autograd Functions shared by the engine tests (each built for the engine ``t`` it gets).

``square(t)`` is ``x * x`` saving its input, so its saved tensor is checked like a built-in's; its
node is named ``SquareBackward`` under both engines.
"""

from __future__ import annotations

from typing import Any


def square(t: Any) -> Any:
    """The ``Square`` Function of engine ``t``: forward ``x * x`` (saves ``x``), backward ``2x``."""

    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    return Square
