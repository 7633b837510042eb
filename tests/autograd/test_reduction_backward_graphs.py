"""The backward of ``sum`` and ``mean`` expands its gradient back by torch's ops.

The formulas call ``unsqueeze``, ``expand`` and ``div.Scalar`` themselves (no argument
parsing), as torch's ``sum_backward`` and ``mean_backward`` do; under ``create_graph`` the
gradient's graph has torch's nodes (``ExpandBackward0``, ``UnsqueezeBackward0``,
``DivBackward1``), values and dtypes, for every form of ``dim``.
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


def second_order(t: ModuleType, reduction: str) -> Any:
    values = np.float32(0.75) if "0-d" in reduction else np.linspace(-1, 1, 24).reshape(2, 3, 4)
    x = t.tensor(values, dtype=t.float32, requires_grad=True)
    y = REDUCTIONS[reduction](x)
    (gx,) = t.autograd.grad((y * y).sum(), x, create_graph=True)
    (ggx,) = t.autograd.grad(gx.sum(), x)
    return [gx, graph(gx.grad_fn), ggx]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_double_backward_through_reductions_is_torchs(reduction: str) -> None:
    same(lambda t: second_order(t, reduction))


@pytest.mark.parametrize("reduction", ["mean", "mean dim", "mean dims keepdim"])
def test_third_order_through_a_mean_divides_by_the_scalar_again(reduction: str) -> None:
    """``DivBackward1``'s own backward is ``div.Scalar`` again: a third derivative's graph has
    ``DivBackward1`` nodes where torch has them."""

    def program(t: ModuleType) -> Any:
        x = t.tensor(np.linspace(-1, 1, 24).reshape(2, 3, 4), dtype=t.float32, requires_grad=True)
        y = REDUCTIONS[reduction](x)
        (gx,) = t.autograd.grad((y * y * y).sum(), x, create_graph=True)
        (ggx,) = t.autograd.grad((gx * gx).sum(), x, create_graph=True)
        (g3,) = t.autograd.grad(ggx.sum(), x)
        return [gx, ggx, graph(ggx.grad_fn), g3]

    same(program)


def test_third_order_through_erf_multiplies_by_the_scalar_again() -> None:
    """``MulBackward1`` (erf's backward scales by 2/sqrt(pi) with ``mul.Scalar``) has
    ``mul.Scalar`` as its own backward: torch's nodes at every order."""

    def program(t: ModuleType) -> Any:
        x = t.tensor([-1.0, 0.25, 2.0], requires_grad=True)
        (gx,) = t.autograd.grad(t.erf(x).sum(), x, create_graph=True)
        (ggx,) = t.autograd.grad(gx.sum(), x, create_graph=True)
        (g3,) = t.autograd.grad((ggx * ggx).sum(), x, create_graph=True)
        return [gx, ggx, g3, graph(g3.grad_fn)]

    same(program)
