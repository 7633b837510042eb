"""``gradcheck`` (finite differences against the analytical gradient, float64) of the ops added
with ``sort``: ``sort``, ``topk``, ``repeat``, ``square``, ``nan_to_num``, ``cumprod`` (with and
without zeros) and ``nansum`` pass under torch and under ownership alike. Inputs have no ties
(where a sort's gradient is not differentiable) and no element closer than the finite-difference
step to another."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

FUNCTIONS: dict[str, Any] = {
    "sort": lambda t, x: x.sort(1).values,
    "sort descending stable": lambda t, x: t.sort(x, stable=True, dim=0, descending=True).values,
    "topk": lambda t, x: x.topk(2).values,
    "topk smallest dim 0": lambda t, x: x.topk(1, 0, largest=False).values,
    "repeat": lambda t, x: x.repeat(2, 1, 3),
    "square": lambda t, x: x.square(),
    "nan_to_num": lambda t, x: x.nan_to_num(),
    "cumprod": lambda t, x: x.cumprod(1),
    "cumprod dim 0": lambda t, x: t.cumprod(x, 0),
    "nansum": lambda t, x: x.nansum(0),
    "nansum all": lambda t, x: t.nansum(x),
}
INPUTS: dict[str, list[list[float]]] = {
    "no zero": [[1.5, -2.0, 3.0], [0.5, 4.0, -1.25]],
    "zeros": [[1.5, 0.0, 3.0], [0.0, 4.0, -0.5]],
}


@pytest.mark.parametrize("inputs", INPUTS)
@pytest.mark.parametrize("function", FUNCTIONS)
def test_gradcheck_passes_under_both(function: str, inputs: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(INPUTS[inputs], dtype=t.float64, requires_grad=True)
        return t.autograd.gradcheck(lambda x: FUNCTIONS[function](t, x), (x,))

    same(program)
