"""What the fused ops save follows the graph's edges, as torch's ``should_compute_output``.

A view made under no_grad of a tensor that requires grad reports ``requires_grad=True`` but has
no edge in the graph; torch's Linear (``addmm``/``mm``) and batch norm then save what the
*other* inputs' gradients need, and nothing for the input without an edge.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.nn_models import SHAPES, data, graph, make_bn, make_linear


def _saved(fn: Any) -> dict[str, Any]:
    return {a: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("bias", [True, False])
def test_linear_of_a_view_made_under_no_grad(shape: tuple[int, ...], bias: bool) -> None:
    def program(t: ModuleType) -> Any:
        lin = make_linear(t, bias)
        x = data(t, shape)
        with t.no_grad():
            xv = x[..., :]
        y = lin(xv)
        fn = y.grad_fn
        result = [xv.requires_grad, y.requires_grad, graph(fn), _saved(fn)]
        y.sum().backward()
        return [*result, lin.weight.grad, x.grad]

    same(program)


@pytest.mark.parametrize("which", ["weight", "bias", "both"])
def test_functional_linear_with_parameters_viewed_under_no_grad(which: str) -> None:
    def program(t: ModuleType) -> Any:
        lin = make_linear(t, True)
        x = data(t, (4, 3))
        w, b = lin.weight, lin.bias
        with t.no_grad():
            if which in ("weight", "both"):
                w = w[:]
            if which in ("bias", "both"):
                b = b[:]
        y = t.nn.functional.linear(x, w, b)
        fn = y.grad_fn
        result = [graph(fn), _saved(fn)]
        y.sum().backward()
        return [*result, x.grad, lin.weight.grad, lin.bias.grad]

    same(program)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_of_a_view_made_under_no_grad(training: bool) -> None:
    def program(t: ModuleType) -> Any:
        bn = make_bn(t, True)
        bn.train(training)
        x = data(t, (5, 3))
        with t.no_grad():
            xv = x[:]
        y = bn(xv)
        fn = y.grad_fn
        result = [graph(fn), sorted(_saved(fn))]
        y.sum().backward()
        return [*result, bn.weight.grad, bn.bias.grad, x.grad]

    same(program)
