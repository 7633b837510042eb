"""The backward of ``sum`` and ``mean`` expands its gradient back by torch's ops.

The formulas call ``unsqueeze`` and ``expand`` themselves (no argument parsing); under
``create_graph`` the gradient's graph has torch's nodes (``ExpandBackward0``,
``UnsqueezeBackward0``, ``DivBackward0``...), values and dtypes, for every form of ``dim``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from support.differential import same
from support.nn_models import graph

REDUCTIONS: dict[str, Callable[[Any], Any]] = {
    "sum": lambda x: x.sum(),
    "sum dim": lambda x: x.sum(1),
    "sum dims keepdim": lambda x: x.sum((0, -1), keepdim=True),
    "sum negative dim": lambda x: x.sum(-2),
    "sum empty dims": lambda x: x.sum(()),
    "mean": lambda x: x.mean(),
    "mean dim": lambda x: x.mean(0),
    "mean dims keepdim": lambda x: x.mean((1, 2), keepdim=True),
    "sum of 0-d": lambda x: x.sum(),
    "sum of 0-d dim": lambda x: x.sum(0),
    "mean of 0-d keepdim": lambda x: x.mean(-1, keepdim=True),
}

GAPS = {  # the same before the formulas called the ops directly (checked against that engine)
    "sum of 0-d": "torch expands a 0-d gradient to () too (ExpandBackward0); the engine passes it on",
    "sum empty dims": "torch's sum(()) backward graph has an AddBackward0 node here",
    "mean": "torch divides by the count with div.Scalar (DivBackward1)",
    "mean dim": "torch divides by the count with div.Scalar (DivBackward1)",
    "mean dims keepdim": "torch divides by the count with div.Scalar (DivBackward1)",
    "mean of 0-d keepdim": "torch divides by the count with div.Scalar (DivBackward1)",
}


def second_order(t: ModuleType, reduction: str) -> Any:
    values = np.float32(0.75) if "0-d" in reduction else np.linspace(-1, 1, 24).reshape(2, 3, 4)
    x = t.tensor(values, dtype=t.float32, requires_grad=True)
    y = REDUCTIONS[reduction](x)
    (gx,) = t.autograd.grad((y * y).sum(), x, create_graph=True)
    (ggx,) = t.autograd.grad(gx.sum(), x)
    return [gx, graph(gx.grad_fn), ggx]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_double_backward_through_reductions_is_torchs(
    reduction: str, request: pytest.FixtureRequest
) -> None:
    if reduction in GAPS:
        request.applymarker(pytest.mark.xfail(strict=True, reason="gap: " + GAPS[reduction]))
    same(lambda t: second_order(t, reduction))
