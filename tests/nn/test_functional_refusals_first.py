"""The refusals torch's ``nn.functional`` writes in Python come before any autograd kernel reads
its inputs' edges: a stale view (its base written in place after an ``unbind``) gets the
function's own error, and the stale-view error only where torch's kernel runs first.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def stale(t: Any, *shape: int) -> Any:
    """A view whose base was written in place after ``unbind`` made it: reading its edge raises."""
    a = t.ones(2, *shape, requires_grad=True).clone()
    v = a.unbind(0)[0]
    a.mul_(2)
    return v


CALLS: dict[str, Any] = {
    "dropout p=2": lambda t, F: F.dropout(stale(t, 3), 2.0),
    "dropout p=-1": lambda t, F: F.dropout(stale(t, 3), -1.0),
    "mse_loss reduction": lambda t, F: F.mse_loss(stale(t, 3), t.ones(3), reduction="bogus"),
    "mse_loss stale target": lambda t, F: F.mse_loss(t.ones(3), stale(t, 3), reduction="x"),
    "mse_loss": lambda t, F: F.mse_loss(stale(t, 3), t.ones(3)),
    "nll_loss reduction": lambda t, F: F.nll_loss(stale(t, 1, 3), t.tensor([0]), reduction="x"),
    "nll_loss 1-d reduction": lambda t, F: F.nll_loss(stale(t, 3), t.tensor(0), reduction="x"),
    "nll_loss batch": lambda t, F: F.nll_loss(stale(t, 1, 3), t.tensor([0, 1])),
    "nll_loss": lambda t, F: F.nll_loss(stale(t, 1, 3), t.tensor([0])),
    "cross_entropy reduction": lambda t, F: F.cross_entropy(
        stale(t, 1, 3), t.tensor([0]), reduction="bogus"
    ),
    "cross_entropy smoothing": lambda t, F: F.cross_entropy(
        stale(t, 1, 3), t.tensor([0]), label_smoothing=2.0
    ),
    "cross_entropy batch": lambda t, F: F.cross_entropy(stale(t, 1, 3), t.tensor([0, 1])),
    "cross_entropy": lambda t, F: F.cross_entropy(stale(t, 1, 3), t.tensor([0])),
    "batch_norm one value": lambda t, F: F.batch_norm(stale(t, 1, 3), None, None, training=True),
    "batch_norm running_mean": lambda t, F: F.batch_norm(
        stale(t, 2, 3), t.zeros(4), t.ones(4), training=True
    ),
    "batch_norm": lambda t, F: F.batch_norm(stale(t, 2, 3), None, None, training=True),
    "leaky_relu": lambda t, F: F.leaky_relu(stale(t, 3)),
    "linear shapes": lambda t, F: F.linear(stale(t, 3), t.ones(4, 4)),
}


@pytest.mark.parametrize("call", CALLS)
def test_the_function_refuses_before_the_stale_view_error(call: str) -> None:
    def program(t):
        return CALLS[call](t, t.nn.functional)

    same(program)
