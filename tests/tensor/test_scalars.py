"""0-d tensors, item(), float()/int()/bool(), len(), iteration and ``in``."""

from __future__ import annotations

import pytest

from support.differential import same
from support.gradients import plain


def test_zero_dim_tensors() -> None:
    def program(t):
        z = t.zeros(())
        s = t.tensor([1.0, 2.0, 3.0]).sum()
        v = t.tensor(2.5)
        return [
            [z.shape == (), z.dim(), z.ndim, z.numel(), z.stride(), tuple(z.size())],
            [s.shape == (), s.item(), v.item(), v.tolist()],
            [z, s, v],
        ]

    same(program)


def test_zero_dim_arithmetic_and_gradients() -> None:
    def program(t):
        a = t.tensor(2.0, requires_grad=True)
        b = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (a * b).sum() * a
        y.backward()
        return [y, plain(a.grad), plain(b.grad), y.shape == ()]

    same(program)


def test_zero_dim_backward_needs_no_gradient() -> None:
    def program(t):
        a = t.tensor(3.0, requires_grad=True)
        (a * a).backward()
        return plain(a.grad)

    assert same(program).values.tolist() == 6.0


def test_zero_dim_indexing() -> None:
    same(lambda t: [t.tensor(1.5)[...], t.tensor(1.5)[None], t.tensor(1.5)[()], t.ones(2, 3)[1, 2]])


@pytest.mark.parametrize(
    "expr",
    [
        "float(t.tensor([2.5]))",
        "float(t.tensor(2.5))",
        "float(t.tensor([[3]]))",
        "int(t.tensor(2.7))",
        "int(t.tensor(-2.7))",
        "int(t.tensor([7]))",
        "bool(t.tensor([0.0]))",
        "bool(t.tensor(0.5))",
        "bool(t.tensor([True]))",
        "t.tensor([[3]]).item()",
        "t.tensor(2.5, dtype=t.float64).item()",
        "t.tensor([True]).item()",
        "t.arange(3)[1].item()",
        "[10, 20, 30][t.tensor(1)]",
        "1 if t.tensor(2) > 1 else 0",
        "f'{t.tensor(2.5):.2f}'",
        "f'{t.ones(2):.2f}'",
        "float(t.ones(2))",
        "int(t.ones(2))",
        "bool(t.ones(2))",
        "bool(t.ones(0))",
        "t.ones(2).item()",
        "t.ones(0).item()",
    ],
)
def test_python_scalar_conversions(expr: str) -> None:
    same(lambda t: eval(expr))


def test_item_and_float_types() -> None:
    def program(t):
        return [
            type(t.tensor(2.5).item()).__name__,
            type(t.tensor(2).item()).__name__,
            type(t.tensor(True).item()).__name__,
            type(float(t.tensor(2))).__name__,
            type(int(t.tensor(2.5))).__name__,
        ]

    assert same(program) == ["float", "int", "bool", "float", "int"]


@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad=True")
def test_item_of_a_tensor_that_requires_grad() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        return [(x.sum() * 2).item(), float(x[1])]

    same(program)


@pytest.mark.parametrize(
    "expr",
    [
        "len(t.tensor(1.0))",
        "len(t.ones(3, 2))",
        "list(t.tensor(1.0))",
        "list(t.arange(3))",
        "t.tensor(1.0)[0]",
        "[r.tolist() for r in t.arange(6).view(2, 3)]",
    ],
)
def test_len_and_iteration(expr: str) -> None:
    same(lambda t: eval(expr))


def test_iteration_yields_views() -> None:
    def program(t):
        x = t.arange(6.0).view(3, 2)
        rows = list(x)
        rows[1].mul_(10)
        return [x, rows[0]._base is x._base, [r.grad_fn for r in rows]]

    same(program)


@pytest.mark.parametrize(
    "expr",
    [
        "1.0 in t.tensor([1.0, 2.0, 3.0])",
        "5 in t.tensor([1.0, 2.0, 3.0])",
        "True in t.tensor([0, 1])",
        "t.tensor(2.0) in t.tensor([1.0, 2.0, 3.0])",
        "t.tensor([[1.0, 2.0, 3.0]]) in t.tensor([1.0, 2.0, 3.0])",
        "t.tensor([1.0, 2.0]) in t.tensor([1.0, 2.0, 3.0])",
        "1 in t.tensor(1)",
        "'a' in t.tensor([1.0])",
        "None in t.tensor([1.0])",
        "[1.0] in t.tensor([1.0])",
    ],
)
def test_in(expr: str) -> None:
    """``x in t``: whether some element equals ``x`` (broadcast), a tensor or a number only."""
    same(lambda t: eval(expr))
