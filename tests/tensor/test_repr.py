"""repr strings exactly as torch prints them."""

from __future__ import annotations

import pytest

from support.differential import same

EXPRESSIONS = [
    "t.tensor([1.0, 2.0], requires_grad=True)",
    "t.tensor([1.0, 2.0], requires_grad=True) * 2",
    "t.tensor([1.0, 2.0], requires_grad=True).sigmoid()",
    "t.tensor([1.0, 2.0], requires_grad=True).sum()",
    "t.tensor([1.0, 2.0], requires_grad=True)[0]",
    "t.tensor([1.0, 2.0], requires_grad=True).detach()",
    "t.ones(2, dtype=t.float64, requires_grad=True)",
    "t.tensor(3.5)",
    "t.tensor(3)",
    "t.zeros(())",
    "t.arange(5)",
    "t.tensor([True, False])",
    "t.ones(2, 3)",
    "t.tensor([[1, 2], [3, 4]])",
    "t.tensor([-1.0, 2.0])",
    "t.tensor([0.1, 0.123456789])",
    "t.tensor([1.0, 2.0]) / 3",
    "t.tensor([1.5, 2.25, 1e-5])",
    "t.tensor([1e10, 1.0])",
    "t.tensor([1.0, float('nan'), float('inf')])",
    "t.ones(2, dtype=t.float64)",
    "t.tensor([2.5, -0.5], dtype=t.float64)",
    "t.arange(12.0).view(2, 2, 3)",
    "t.arange(6).view(2, 3).t()",
    "t.tensor([])",
    "t.zeros(0, 3)",
    "t.arange(2000.0)",
    "t.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True) @ t.ones(2, 2)",
    "t.tensor([1.0, 2.0]) > 1.5",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_repr_matches_torch(expr: str) -> None:
    same(lambda t: repr(eval(expr)))


@pytest.mark.parametrize("expr", EXPRESSIONS[:8])
def test_str_matches_torch(expr: str) -> None:
    same(lambda t: str(eval(expr)))


def test_the_units_repr_examples() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        return [repr(x), repr(x * x)]

    assert same(program) == [
        "tensor([1., 2.], requires_grad=True)",
        "tensor([1., 4.], grad_fn=<MulBackward0>)",
    ]


def test_repr_after_an_inplace_on_a_view() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True) * 1
        x[0].mul_(3)
        return [repr(x), repr(x[1])]

    assert same(program)[0] == "tensor([3., 2.], grad_fn=<CopySlices>)"


def test_repr_of_dtypes() -> None:
    same(lambda t: [repr(t.float32), repr(t.float64), repr(t.int64), repr(t.bool), str(t.float32)])


def test_repr_of_a_grad_fn_node_names_it() -> None:
    def program(t):
        y = t.ones(2, requires_grad=True) * 2
        x = t.ones(2, requires_grad=True) * 1
        x[0] = 5.0
        nodes = [y.grad_fn, y.grad_fn.next_functions[0][0], x.grad_fn]
        return [repr(n).split(" object at ")[0] for n in nodes]

    assert same(program) == ["<MulBackward0", "<AccumulateGrad", "<CopySlices"]
