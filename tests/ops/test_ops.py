"""Every op of the issue: values, dtypes, grad_fn, and gradients with broadcasting and unbroadcast."""

from __future__ import annotations

import numpy as np
import pytest

from support.differential import Named, same
from support.gradients import plain


def data(shape: tuple[int, ...], seed: int, low: float = -2.0, high: float = 2.0) -> object:
    """Deterministic nested lists (or a float for shape ()) that both engines turn into tensors."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(low, high, size=shape).round(3)
    return values.tolist()


SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1), (1, 3)),
    ((2, 3), ()),
    ((), (2, 3)),
    ((4, 1, 3), (2, 1)),
    ((1,), (2, 2)),
    ((), ()),
]

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "add_method": lambda a, b: a.add(b),
    "mul_method": lambda a, b: a.mul(b),
}


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_op_broadcasts_and_unbroadcasts(op: str, shapes) -> None:
    positive = op in ("pow", "div")

    def program(t):
        a = t.tensor(data(shapes[0], 1, 0.5 if positive else -2.0), requires_grad=True)
        b = t.tensor(data(shapes[1], 2, 0.5 if positive else -2.0), requires_grad=True)
        out = BINARY[op](a, b)
        (out * t.tensor(data(tuple(out.shape), 3))).sum().backward()
        return [out, plain(a.grad), plain(b.grad)]

    same(program)


SCALAR = {
    "add": lambda a: a + 2.5,
    "radd": lambda a: 2.5 + a,
    "sub": lambda a: a - 2.5,
    "rsub": lambda a: 2.5 - a,
    "mul": lambda a: a * 2.5,
    "rmul": lambda a: 2.5 * a,
    "div": lambda a: a / 2.5,
    "rdiv": lambda a: 2.5 / a,
    "pow": lambda a: a**2,
    "pow_float": lambda a: a**1.5,
    "pow_neg": lambda a: a**-1,
    "rpow": lambda a: 2.5**a,
    "neg": lambda a: -a,
    "int_scalar": lambda a: a * 3 + 1,
}


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
@pytest.mark.parametrize("op", sorted(SCALAR))
def test_op_with_a_python_scalar(op: str, shape) -> None:
    def program(t):
        a = t.tensor(data(shape, 4, 0.5, 2.0), requires_grad=True)
        out = SCALAR[op](a)
        (out * t.tensor(data(tuple(out.shape), 5))).sum().backward()
        return [out, plain(a.grad)]

    same(program)


UNARY = {
    "exp": lambda t, a: a.exp(),
    "log": lambda t, a: a.abs().log(),
    "sqrt": lambda t, a: a.abs().sqrt(),
    "abs": lambda t, a: a.abs(),
    "sigmoid": lambda t, a: a.sigmoid(),
    "tanh": lambda t, a: a.tanh(),
    "relu": lambda t, a: a.relu(),
    "clamp": lambda t, a: a.clamp(-0.5, 0.7),
    "clamp_min": lambda t, a: a.clamp(min=0.1),
    "clamp_max": lambda t, a: a.clamp(max=0.1),
    "pow": lambda t, a: a.pow(3),
    "sum": lambda t, a: a.sum(),
    "sum_0": lambda t, a: a.sum(0),
    "sum_neg": lambda t, a: a.sum(-1),
    "sum_keepdim": lambda t, a: a.sum(1, keepdim=True),
    "sum_dims": lambda t, a: a.sum((0, 2)),
    "sum_dim_kw": lambda t, a: a.sum(dim=1),
    "mean": lambda t, a: a.mean(),
    "mean_dim": lambda t, a: a.mean(1),
    "mean_keepdim": lambda t, a: a.mean(-1, keepdim=True),
    "max": lambda t, a: a.max(),
    "max_dim": lambda t, a: a.max(1)[0],
    "max_dim_keepdim": lambda t, a: a.max(2, keepdim=True)[0],
    "softmax": lambda t, a: a.softmax(-1),
    "softmax_0": lambda t, a: a.softmax(dim=0),
    "log_softmax": lambda t, a: a.log_softmax(-1),
    "log_softmax_1": lambda t, a: a.log_softmax(1),
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_op_values_and_gradient(op: str) -> None:
    def program(t):
        a = t.tensor(data((2, 3, 4), 8), requires_grad=True)
        out = UNARY[op](t, a)
        (out * t.tensor(data(tuple(out.shape), 9))).sum().backward()
        return [out, plain(a.grad)]

    same(program)


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 2)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (4, 3, 2)),
    ((2, 3), (2, 3)),
    ((), (3,)),
]


@pytest.mark.parametrize("form", ["operator", "function"])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_shapes_and_gradients(shapes, form: str) -> None:
    """Values and gradients for every rank; the node names are checked for mm/mv/dot only.

    For batched and mixed ranks torch's matmul is a composite (unsqueeze, bmm, _unsafe_view,
    even an in-place squeeze_), whose node names and versions are not the contract here.
    """

    def program(t):
        a = t.tensor(data(shapes[0], 10), requires_grad=True)
        b = t.tensor(data(shapes[1], 11), requires_grad=True)
        out = a @ b if form == "operator" else t.matmul(a, b)
        (out * t.tensor(data(tuple(out.shape), 12))).sum().backward()
        simple = a.ndim <= 2 and b.ndim <= 2 and a.ndim >= b.ndim
        return [out if simple else plain(out), out.requires_grad, plain(a.grad), plain(b.grad)]

    same(program)


def test_max_gradient_splits_between_ties_like_torch() -> None:
    def program(t):
        a = t.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
        a.max().backward()
        whole = a.grad.clone()
        a.grad = None
        v, i = a.max(1)
        v.sum().backward()
        return [whole, plain(a.grad), v, i]

    same(program)


def test_relu_and_abs_and_clamp_gradient_at_the_kinks() -> None:
    def program(t):
        a = t.tensor([-1.0, 0.0, 1.0, 2.0], requires_grad=True)
        (a.relu() + a.abs() + a.clamp(0.0, 1.0)).sum().backward()
        return plain(a.grad)

    same(program)


def test_stable_softmax_and_log_softmax_with_large_inputs() -> None:
    def program(t):
        a = t.tensor([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]], requires_grad=True)
        s = a.softmax(-1)
        ls = a.log_softmax(-1)
        (s[:, 0].sum() + ls[:, 1].sum()).backward()
        return [s, ls, plain(a.grad)]

    same(program)


COMPARE = {
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "gt_scalar": lambda a, b: a > 0,
    "eq_scalar": lambda a, b: a == 1.0,
}


@pytest.mark.parametrize("op", sorted(COMPARE))
def test_comparisons_produce_bool_tensors_without_grad(op: str) -> None:
    def program(t):
        a = t.tensor([[1.0, -2.0, 3.0], [0.0, 1.0, 2.0]], requires_grad=True)
        b = t.tensor([1.0, 0.0, 3.0])
        out = COMPARE[op](a, b)
        return [out, out.dtype, out.requires_grad, out.grad_fn]

    same(program)


@pytest.mark.parametrize(
    "expr",
    [
        "t.arange(3) + 1",
        "t.arange(3) * 2.5",
        "t.arange(3) / 2",
        "t.arange(3) + t.ones(3)",
        "t.ones(3) + t.ones(3, dtype=t.float64)",
        "t.ones(3) + t.tensor(2.0, dtype=t.float64)",
        "t.arange(3) + t.tensor(2.0)",
        "t.tensor([True, False]) + t.tensor([True, True])",
        "t.tensor([True, False]) * 3",
        "t.tensor([1, 2]) ** 2",
        "t.tensor([1, 2]) > 1.5",
        "t.tensor([1.0, 2.0], dtype=t.float64).sum()",
        "t.arange(4).sum()",
        "t.arange(4.0).mean()",
        "t.arange(4).max()",
        "-t.arange(3)",
        "t.arange(3).abs()",
        "t.arange(3).exp()",
        "-t.tensor([True, False])",
        "1 - t.tensor([True, False])",
        "(t.arange(3) > 0) & (t.arange(3) < 2)",
        "~(t.arange(3) > 0)",
    ],
)
def test_dtype_promotion(expr: str) -> None:
    def program(t):
        out = eval(expr)
        return [out, out.dtype]

    same(program)


@pytest.mark.parametrize(
    "expr",
    [
        "t.ones(2, 3) + t.ones(3, 2)",
        "t.ones(2, 3) @ t.ones(2, 3)",
        "t.ones(3) @ t.ones(4)",
        "t.ones(2, 3).sum(2)",
        "t.ones(2, 3).softmax(3)",
        "t.ones(2, 3).max(5)",
        "t.arange(3).mean()",
        "t.ones(2) @ 2",
        "t.ones(2, 3).sum((0, 0))",
        "t.ones(2, 3).sum(-3)",
        "t.tensor([1, 2]).softmax(0)",
        "t.zeros(-1)",
        "t.tensor([[1, 2], [3]])",
        "t.ones(2, 3).size(2)",
        "t.ones(2, 3).permute(0)",
        "t.arange(5).split([2, 2])",
        "t.tensor([1.0, 2.0]).expand(-1, 2)",
    ],
)
def test_shape_and_dtype_errors(expr: str) -> None:
    same(lambda t: eval(expr))


def test_constructors() -> None:
    def program(t):
        return [
            t.zeros(2, 3),
            t.zeros((2, 3)),
            t.ones(4, dtype=t.float64),
            t.arange(5),
            t.arange(1, 4),
            t.arange(0.0, 1.0, 0.25),
            t.arange(5).dtype,
            t.arange(5.0).dtype,
            t.tensor([1, 2]).dtype,
            t.tensor([1.0, 2]).dtype,
            t.tensor(True).dtype,
            t.tensor([[1, 2], [3, 4]], dtype=t.float32),
            t.zeros_like(t.arange(3)),
            t.ones_like(t.ones(2, dtype=t.float64)),
            t.zeros(()),
            t.float32,
            t.float64,
            t.int64,
            t.bool,
        ]

    same(program)


def test_randn_shape_dtype_and_reproducibility() -> None:
    def program(t):
        t.manual_seed(0)
        a = t.randn(3, 4)
        t.manual_seed(0)
        b = t.randn(3, 4)
        return [tuple(a.shape), a.dtype, a.tolist() == b.tolist()]

    same(program)


def test_randn_with_a_generator_is_reproducible() -> None:
    def program(t):
        a = t.randn(2, 3, generator=t.Generator().manual_seed(7))
        b = t.randn(2, 3, generator=t.Generator().manual_seed(7))
        c = t.randn(4, dtype=t.float64)
        return [tuple(a.shape), a.dtype, a.tolist() == b.tolist(), c.dtype, a.requires_grad]

    assert same(program)[2] is True


def test_the_broadcasting_docs_example() -> None:
    """(5, 1, 4, 1) + (3, 1, 1) -> (5, 3, 4, 1), and the gradients unbroadcast back."""

    def program(t):
        a = t.tensor(data((5, 1, 4, 1), 13), requires_grad=True)
        b = t.tensor(data((3, 1, 1), 14), requires_grad=True)
        out = a * b + a
        (out * t.tensor(data((5, 3, 4, 1), 15))).sum().backward()
        return [tuple(out.shape), out, plain(a.grad), plain(b.grad)]

    assert same(program)[0] == (5, 3, 4, 1)


def test_gradients_take_the_dtype_of_their_input_in_mixed_precision() -> None:
    def program(t):
        a = t.ones(2, dtype=t.float64, requires_grad=True)
        b = t.ones(2, requires_grad=True)
        s = t.tensor(3.0, dtype=t.float64, requires_grad=True)
        y = a * b + b * s
        y.sum().backward()
        return [y.dtype, plain(a.grad), plain(b.grad), plain(s.grad), b.grad.dtype, s.grad.dtype]

    assert same(program)[4] == Named("torch.float32")


@pytest.mark.parametrize("needs", ["a", "b"])
@pytest.mark.parametrize(
    "shapes", [((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (3,))], ids=str
)
def test_matmul_unfolded_batches_with_one_side_requiring_grad(shapes, needs: str) -> None:
    """When torch does not fold (the smaller side needs no gradient and the larger is not
    foldable without a copy), matmul is one bmm over broadcast operands, 1-D sides included."""

    def program(t):
        a = t.tensor(data(shapes[0], 10), requires_grad=needs == "a")
        b = t.tensor(data(shapes[1], 11), requires_grad=needs == "b")
        b = b.transpose(0, 1).contiguous().transpose(0, 1) if b.ndim == 3 else b
        out = a @ b
        out.sum().backward()
        return [plain(out), plain(a.grad), plain(b.grad) if b.is_leaf else None]

    same(program)
