"""The layout of an elementwise result when an operand is broadcast from one element (every
stride 0, as a sum's gradient): it orders no dimension, so the other operands decide, as torch's
iterator has it (row-major beside row-major ones, theirs beside a permuted or channels-last one)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same

OTHERS = {
    "row-major": lambda t: t.arange(1.0, 25.0).reshape(2, 3, 4, 1),
    "size-1 dims": lambda t: t.arange(1.0, 5.0).reshape(1, 1, 4, 1).expand(2, 3, 4, 1) + 0,
    "permuted": lambda t: t.arange(1.0, 25.0).reshape(4, 1, 3, 2).permute(3, 2, 0, 1),
    "channels-last": lambda t: (
        t.arange(1.0, 25.0).reshape(2, 3, 4, 1).to(memory_format=t.channels_last)
    ),
    "float64": lambda t: t.arange(1.0, 25.0, dtype=t.float64).reshape(2, 3, 4, 1),
}
OPS = {
    "mul": lambda t, a, b: a * b,
    "add": lambda t, a, b: b + a,
    "div": lambda t, a, b: a / b,
    "where": lambda t, a, b: t.where(b > 3, a, b),
    "by a number": lambda t, a, b: a * 3.0,
}


@pytest.mark.parametrize("op", OPS, ids=list(OPS))
@pytest.mark.parametrize("other", OTHERS, ids=list(OTHERS))
def test_an_operand_of_one_element_orders_no_dimension(other: str, op: str) -> None:
    def program(t: ModuleType) -> Any:
        b = OTHERS[other](t)
        a = t.tensor(2.0).expand(2, 3, 4, 1)
        out = OPS[op](t, a, b)
        return out, out.stride()

    same(program)


def test_the_gradient_of_a_sum_times_a_column() -> None:
    def program(t: ModuleType) -> Any:
        p = t.arange(1.0, 5.0).reshape(4, 1).requires_grad_()
        q = t.arange(1.0, 5.0).reshape(1, 4).t().requires_grad_()
        (p * q).sum().backward()
        return p.grad, p.grad.stride(), q.grad, q.grad.stride()

    same(program)
