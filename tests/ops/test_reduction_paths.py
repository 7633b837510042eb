"""Whole-tensor ``sum``/``mean`` (reduced into a fresh 0-d array) and the reductions' backward
formulas (module functions that read the node's saved values) agree with torch.

The whole reduction skips numpy's scalar result, and each backward reads ``self_sym_sizes``,
``dim``, ``keepdim`` and ``self_sym_numel`` from the node instead of a closure: these programs
check the values, dtypes, saved values, gradients (first and second order) and the result's own
storage against torch's, over the dtypes and shapes where the paths differ.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from support.differential import same

Make = Callable[[ModuleType], Any]

INPUTS: dict[str, Make] = {
    "float32 matrix": lambda t: t.tensor(np.linspace(-2, 3, 12, dtype=np.float32).reshape(3, 4)),
    "float64 0-d": lambda t: t.tensor(2.5, dtype=t.float64),
    "float32 empty": lambda t: t.zeros(0, 3),
    "float32 transposed": lambda t: t.arange(6.0).reshape(2, 3).t(),
    "float32 overflow": lambda t: t.full((4,), 3.0e38),
    "int64": lambda t: t.arange(-3, 9).reshape(3, 4),
    "bool": lambda t: t.tensor([[True, False, True], [False, False, True]]),
}

REDUCTIONS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "sum": lambda t, x: x.sum(),
    "sum float64": lambda t, x: x.sum(dtype=t.float64),
    "torch.sum": lambda t, x: t.sum(x),
    "mean": lambda t, x: x.mean(),
    "mean float64": lambda t, x: x.mean(dtype=t.float64),
}


def _reduced(t: ModuleType, make: Make, reduce: Callable[[ModuleType, Any], Any]) -> Any:
    x = make(t)
    out = reduce(t, x)
    return out, out.stride(), out.storage_offset(), out.data_ptr() != x.data_ptr()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("source", INPUTS)
def test_a_whole_reduction_is_torchs(source: str, reduction: str) -> None:
    same(lambda t: _reduced(t, INPUTS[source], REDUCTIONS[reduction]))


GRAD_INPUTS: dict[str, Make] = {
    "matrix": lambda t: t.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True),
    "0-d": lambda t: t.tensor(1.5, requires_grad=True),
    "empty": lambda t: t.zeros(2, 0, requires_grad=True),
    "3-d": lambda t: t.tensor(np.linspace(-1, 1, 24).reshape(2, 3, 4), requires_grad=True),
}

DIFFERENTIABLE: dict[str, Callable[[Any], Any]] = {
    "sum": lambda x: x.sum(),
    "mean": lambda x: x.mean(),
    "sum dim": lambda x: x.sum(0),
    "sum dims keepdim": lambda x: x.sum((0, 1), keepdim=True),
    "mean dim": lambda x: x.mean(0),
    "mean dims keepdim": lambda x: x.mean((0, 1), keepdim=True),
}

# dims given as non-negative ints: torch shows a negative saved dim as an unsigned int (a gap of
# its own, not of these paths)
SAVED = ("self_sym_sizes", "self_sym_numel", "dim", "keepdim")


def _gradients(t: ModuleType, make: Make, reduce: Callable[[Any], Any]) -> Any:
    """The node and its saved values, the gradient and a second-order gradient through it."""
    x = make(t)
    out = reduce(x * x)
    node = out.grad_fn
    saved = {k: getattr(node, "_saved_" + k) for k in SAVED if hasattr(node, "_saved_" + k)}
    weight = t.linspace(0.5, 2.0, out.numel(), dtype=out.dtype).reshape(out.shape)
    (g,) = t.autograd.grad((out * weight).sum(), x, create_graph=True)
    (gg,) = t.autograd.grad(g.sum() if g.numel() else g.sum() + x.sum(), x, allow_unused=True)
    return out, node, saved, g, gg


# every input with every reduction, but a 0-d tensor's keepdim reductions: it has one dim to
# reduce, and (0, 1) names one it does not have
PAIRS = [
    (source, reduction)
    for source in GRAD_INPUTS
    for reduction in DIFFERENTIABLE
    if not (source == "0-d" and reduction.endswith("keepdim"))
]


@pytest.mark.parametrize(("source", "reduction"), PAIRS)
def test_the_backward_formulas_are_torchs(source: str, reduction: str) -> None:
    same(lambda t: _gradients(t, GRAD_INPUTS[source], DIFFERENTIABLE[reduction]))


def test_a_gradient_hook_sees_the_expanded_gradient() -> None:
    """The gradient a whole sum sends back is torch's expanded view: 0 strides, not a copy."""

    def program(t: ModuleType) -> Any:
        x = t.ones(2, 3, requires_grad=True)
        y = x * 2
        seen: list[Any] = []
        y.register_hook(lambda g: seen.append((g.clone(), g.stride(), g.is_contiguous())))
        y.mean().backward()
        return seen, x.grad

    same(program)
