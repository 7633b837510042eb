"""The gradient of ``self ** exponent`` with a tensor exponent, op for op as torch's
``pow_backward_self`` and ``pow_backward_exponent``: ``self`` gets 0 where the exponent is 0
(a zero base included, where the formula alone is ``0 * inf``); the exponent gets 0 where
``self`` is 0 and the exponent is not negative, else ``result * log(self)``: NaN for a negative
base, ``-inf`` for a zero base with a negative exponent."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import plain

BASES_AND_EXPONENTS: dict[str, Any] = {
    "negative, zero and positive bases": ([-2.0, 0.0, 0.0, 2.0, 0.0], [2.0, 2.0, -1.0, 0.0, 0.0]),
    "a zero base to the zero": ([0.0], [0.0]),
    "fractional exponents": ([-1.5, 0.5, 3.0], [0.5, -0.5, 1.5]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("values", BASES_AND_EXPONENTS.values(), ids=BASES_AND_EXPONENTS.keys())
def test_both_gradients_at_zero_and_negative_bases(values: Any, dtype: str) -> None:
    base, exponent = values

    def program(t: Any) -> Any:
        x = t.tensor(base, dtype=getattr(t, dtype), requires_grad=True)
        e = t.tensor(exponent, dtype=getattr(t, dtype), requires_grad=True)
        (x**e).sum().backward()
        return [plain(x.grad), plain(e.grad)]

    same(program)


def test_a_broadcast_exponent() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.0, -1.0], [2.0, 0.5]], requires_grad=True)
        e = t.tensor([0.0, 3.0], requires_grad=True)
        gx, ge = t.autograd.grad((x**e).sum(), [x, e])
        return [gx, gx.stride(), ge]

    same(program)


def test_an_exponent_of_0_gives_a_row_major_zero_gradient() -> None:
    """``pow_backward`` with a number exponent of 0: ``zeros_like(self)`` in the legacy
    contiguous format, whatever ``self``'s layout."""

    def program(t: Any) -> Any:
        x = t.ones(2, 3).t().requires_grad_()
        (g,) = t.autograd.grad((x**0).sum(), [x])
        return [g, g.stride()]

    same(program)
