"""``torch.rsub(input, other, alpha=1)`` (``other - alpha * input``) and ``2 - x``: torch's
values, dtypes and refusals, its node (``RsubBackward0`` for a tensor ``other``, whose inputs
keep rsub's order, ``RsubBackward1`` for a number) and its gradients, broadcast included."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import node_and_gradients, second_order

CALLS: dict[str, Any] = {
    "tensor": lambda t, x, y: t.rsub(x, y),
    "tensor, alpha": lambda t, x, y: t.rsub(x, y, alpha=2),
    "tensor, float alpha": lambda t, x, y: t.rsub(x, y, alpha=0.5),
    "keywords": lambda t, x, y: t.rsub(other=y, input=x, alpha=-3),
    "number": lambda t, x, y: t.rsub(x, 3),
    "float number, alpha": lambda t, x, y: t.rsub(x, 2.5, 2),
    "number, alpha keyword": lambda t, x, y: t.rsub(x, 7, alpha=3),
    "reflected operator": lambda t, x, y: 2 - x,
    "reflected operator of a tensor": lambda t, x, y: x.__rsub__(y),
}

OPERANDS: dict[str, Any] = {
    "float32": lambda t: (t.tensor([1.0, -2.0, 3.5]), t.tensor([[0.5], [4.0]])),
    "int64": lambda t: (t.tensor([1, -2, 3]), t.tensor([[5], [7]])),
    "int32 and int64": lambda t: (t.tensor([1, 2], dtype=t.int32), t.tensor([3, 4])),
    "float64 and float32": lambda t: (t.tensor([1.0], dtype=t.float64), t.tensor([2.0, 3.0])),
    "bool": lambda t: (t.tensor([True, False]), t.tensor([True, True])),
    "empty": lambda t: (t.ones(0, 3), t.ones(2, 1, 3)),
}


@pytest.mark.parametrize("operands", OPERANDS)
@pytest.mark.parametrize("call", CALLS)
def test_rsub_computes_and_refuses_as_torch(call: str, operands: str) -> None:
    def program(t: Any) -> Any:
        x, y = OPERANDS[operands](t)
        out = CALLS[call](t, x, y)
        return out, out.stride()

    same(program)


@pytest.mark.parametrize("call", [c for c in CALLS if c != "reflected operator of a tensor"])
def test_rsub_records_torchs_node_and_gradients(call: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, -2.0, 3.5], requires_grad=True)
        y = t.tensor([[0.5], [4.0]], requires_grad=True)
        out = CALLS[call](t, x, y)
        return node_and_gradients(t, out, x, y)

    same(program)


def test_rsub_of_a_tensor_that_needs_no_grad_sends_none_down_its_edge() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        out = t.rsub(t.tensor([3.0, 4.0]), x, alpha=2)
        return node_and_gradients(t, out, x)

    same(program)


def test_rsub_differentiates_twice_as_torch() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        return second_order(t, (t.rsub(x, x * x, alpha=3) ** 2).sum(), x)

    same(program)


def test_rsub_refuses_what_torch_refuses() -> None:
    same(lambda t: t.rsub(3, t.tensor([1.0])), raises="TypeError")
    same(lambda t: t.rsub(t.tensor([1.0])), raises="TypeError")
    same(lambda t: t.rsub(t.tensor([1, 2]), 1, alpha=0.5))
    same(lambda t: t.rsub(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0, 3.0])))
