"""``cumsum`` (and ``cumsum_``) and ``prod``: torch's values and dtypes (int64 for integers and
bools, ``dtype=``), its refusals, its nodes (``CumsumBackward0``, ``ProdBackward0/1``) and what
they save, and its gradients, with zeros in the product handled as torch handles them."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import saved_values, weighted_backward

TENSORS: dict[str, Any] = {
    "float32": lambda t: t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]),
    "float64": lambda t: t.tensor([[1.5, -2.0], [0.25, 4.0]], dtype=t.float64),
    "int64": lambda t: t.tensor([[3, -2, 5], [7, 1, 0]]),
    "int32": lambda t: t.tensor([2, 3, -4], dtype=t.int32),
    "bool": lambda t: t.tensor([True, False, True]),
    "0-d": lambda t: t.tensor(2.5),
    "empty": lambda t: t.zeros(2, 0),
    "3-d": lambda t: t.arange(24.0).reshape(2, 3, 4) / 7,
}

CUMSUM: dict[str, Any] = {
    "dim 0": lambda t, x: x.cumsum(0),
    "dim -1": lambda t, x: t.cumsum(x, -1),
    "dim=1": lambda t, x: x.cumsum(dim=1),
    "dtype float64": lambda t, x: x.cumsum(0, dtype=t.float64),
    "dtype int32": lambda t, x: t.cumsum(x, dim=0, dtype=t.int32),
    "dim 2": lambda t, x: x.cumsum(2),
}
PROD: dict[str, Any] = {
    "all": lambda t, x: x.prod(),
    "all dtype": lambda t, x: t.prod(x, dtype=t.float64),
    "dim 0": lambda t, x: x.prod(0),
    "dim -1 keepdim": lambda t, x: t.prod(x, -1, True),
    "dim=1 keepdim=": lambda t, x: x.prod(dim=1, keepdim=False, dtype=t.int64),
    "dim 2": lambda t, x: x.prod(2),
}


@pytest.mark.parametrize("form", [*CUMSUM, *PROD])
@pytest.mark.parametrize("tensor", TENSORS)
def test_values_dtypes_and_refusals_are_torchs(form: str, tensor: str) -> None:
    op = CUMSUM.get(form) or PROD[form]
    same(lambda t: op(t, TENSORS[tensor](t)))


def test_refusals() -> None:
    same(lambda t: t.tensor([1.0]).cumsum(), raises="TypeError")
    same(lambda t: t.tensor([1.0]).cumsum(dim=None), raises="TypeError")
    same(lambda t: t.cumsum(t.tensor([1.0])), raises="TypeError")
    same(lambda t: t.tensor([1.0]).prod((0,)), raises="TypeError")
    same(lambda t: t.prod(t.tensor([1.0]), "x"), raises="TypeError")
    same(lambda t: t.tensor([1.0], requires_grad=True).cumsum(0, dtype=t.int64))
    same(lambda t: t.tensor([1.0], requires_grad=True).prod(0, dtype=t.int64))
    same(lambda t: t.tensor([1.0], requires_grad=True).prod(dtype=t.int64))
    same(lambda t: t.tensor([1, 2]).cumsum(0, dtype=t.bool))
    same(lambda t: t.tensor([True, False]).prod(0, dtype=t.bool))


GRADS: dict[str, Any] = {**{"cumsum " + k: v for k, v in CUMSUM.items() if "int" not in k}}
GRADS.update({"prod " + k: v for k, v in PROD.items() if "=1" not in k})
VALUES: dict[str, list[float]] = {
    "no zero": [1.5, -2.0, 3.0, 0.5, 4.0, -1.0],
    "one zero": [1.5, 0.0, 3.0, 0.5, 4.0, -1.0],
    "two zeros in a row": [0.0, 2.0, 0.0, 0.5, 4.0, -1.0],
    "a zero in each row": [0.0, 2.0, 3.0, 0.5, 4.0, 0.0],
}


@pytest.mark.parametrize("case", [k for k in GRADS if "dim 2" not in k])
@pytest.mark.parametrize("values", VALUES)
def test_nodes_saved_values_and_gradients_are_torchs(case: str, values: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(VALUES[values], requires_grad=True)
        y = GRADS[case](t, x.reshape(2, 3))
        fn = y.grad_fn
        saved = saved_values(fn)
        weighted_backward(t, y)
        return y, fn, saved, x.grad

    same(program)


@pytest.mark.parametrize("op", ["cumsum", "prod"])
def test_gradients_of_a_0d_tensor_are_torchs(op: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(2.5, requires_grad=True)
        y = getattr(x, op)(0)
        (y * 3).backward()
        return y, y.grad_fn, x.grad

    same(program)


def test_second_order_gradients() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        out = (x.cumsum(1) ** 2).sum() + x.prod(1).sum() + x.prod()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        return gx, t.autograd.grad(gx.sum(), x)

    same(program)


@pytest.mark.parametrize("tensor", ["float32", "int64", "int32", "bool", "0-d"])
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_cumsum_in_place_is_torchs(tensor: str, dtype: str | None) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        out = x.cumsum_(0, dtype=None if dtype is None else getattr(t, dtype))
        return out is x, out, x._version

    same(program)


def test_cumsum_in_place_records_its_node() -> None:
    def program(t: Any) -> Any:
        a = t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        x = a * 1
        x.cumsum_(1)
        fn = x.grad_fn
        (x * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        return x, x._version, fn, fn._saved_dim, a.grad

    same(program)
    same(lambda t: t.tensor([1.0], requires_grad=True).cumsum_(0))


@pytest.mark.parametrize("values", [v for k, v in VALUES.items() if k != "no zero"])
@pytest.mark.parametrize("dim", [None, 0, -1])
def test_second_order_gradients_of_prod_with_zeros(values: list[float], dim: int | None) -> None:
    """Values only: torch's zero-safe formula differs from the engine's in its intermediate
    nodes (and so in the version of the second gradient), not in values."""

    def program(t: Any) -> Any:
        x = t.tensor(values, requires_grad=True).reshape(2, 3)
        out = x.prod() if dim is None else x.prod(dim).sum()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        (ggx,) = t.autograd.grad((gx * gx).sum(), x)
        return gx.tolist(), ggx.tolist()

    same(program)


BOOL_RESULTS: dict[str, Any] = {
    "0-d bool": lambda t: t.tensor(True).cumsum(0, dtype=t.bool),
    "0-d int into bool": lambda t: t.tensor(3).cumsum(0, dtype=t.bool),
    "0-d float into bool": lambda t: t.tensor(2.5).cumsum(0, dtype=t.bool),
    "empty into bool": lambda t: t.zeros(0).cumsum(0, dtype=t.bool),
    "empty bool": lambda t: t.zeros(0, dtype=t.bool).cumsum(0, dtype=t.bool),
    "1-d into bool": lambda t: t.tensor([1, 2]).cumsum(0, dtype=t.bool),
    "0-d bool in place": lambda t: t.tensor(True).cumsum_(0),
    "empty bool in place": lambda t: t.zeros(0, dtype=t.bool).cumsum_(0),
    "1-d bool in place": lambda t: t.tensor([True]).cumsum_(0),
}


@pytest.mark.parametrize("call", BOOL_RESULTS)
def test_a_bool_result_is_refused_only_by_the_kernel(call: str) -> None:
    """torch's kernel refuses a bool result; a 0-d tensor is copied and an empty one left
    empty without it."""
    same(BOOL_RESULTS[call])


@pytest.mark.parametrize("scan", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize(
    "layout", ["permuted", "transposed", "stepped", "expanded", "reversed dims"]
)
def test_running_results_are_contiguous_whatever_the_input_layout(
    scan: str, dim: int, layout: str
) -> None:
    """torch's scans write an out resized from empty: C order, not the input's layout."""

    def program(t: Any) -> Any:
        x = t.arange(1.0, 25.0).view(2, 3, 4)
        v = {
            "permuted": x.permute(2, 0, 1),
            "transposed": x.transpose(0, 1),
            "stepped": x[:, :, ::2],
            "expanded": x[:1].expand(3, 3, 4),
            "reversed dims": x.permute(2, 1, 0),
        }[layout]
        out = getattr(v, scan)(dim)
        return [out, out.stride(), getattr(v, scan)(dim, dtype=t.float64).stride()]

    same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_no_running_sum_is_negative_zero(dtype: str) -> None:
    """torch's running sum starts at 0, so a leading -0.0 sums to +0.0 (fuzz programs 302823,
    318749: ``1 / x.cumsum(0)`` is +inf there); a 0-d tensor is copied, its -0.0 kept."""

    def program(t: Any) -> Any:
        x = t.tensor([[-0.0, -0.0], [-0.0, 1.0], [3.0, -2.0]], dtype=getattr(t, dtype))
        y = x.clone()
        y.cumsum_(0)
        zero_d = t.tensor(-0.0, dtype=getattr(t, dtype))
        return [1 / x.cumsum(0), 1 / x.cumsum(1), 1 / y, 1 / zero_d.cumsum(0), 1 / x.cumprod(0)]

    same(program)


@pytest.mark.parametrize("shape", [(3,), (7,), (20,), (1, 5), (4, 1), (3, 6)])
@pytest.mark.parametrize("dim", [0, -1])
def test_cumsums_gradient_is_a_reversed_cumsum(shape: tuple[int, ...], dim: int) -> None:
    """torch's ``cumsum_backward`` is ``g.flip(dim).cumsum(dim).flip(dim)``: its sums round as
    torch's, and a NaN reaches only the positions before it (fuzz program 374311)."""

    def program(t: Any) -> Any:
        gen = t.Generator().manual_seed(3)
        x = t.randn(shape, generator=gen, requires_grad=True)
        g = t.randn(shape, generator=gen)
        g.view(-1)[0] = float("nan") if x.numel() > 2 else 0.0
        x.cumsum(dim).backward(g)
        return x.grad

    same(program)


@pytest.mark.parametrize("shape", [(1, 3), (3, 1), (1,), (1, 1), (0, 2), (2, 2)], ids=str)
@pytest.mark.parametrize("dim", [0, -1])
def test_cumsum_passes_its_gradient_on_where_the_dim_has_one_element(
    shape: tuple[int, ...], dim: int
) -> None:
    """torch's trivial case (the fuzzer's seed 399762): a gradient of at most one element, or
    along a dim of size 1, is the incoming gradient itself (an expanded one keeps its strides and
    its memory)."""

    def program(t: Any) -> Any:
        x = t.ones(shape, dtype=t.float64, requires_grad=True)
        total = x.cumsum(dim).sum()
        g_total, g_x = t.autograd.grad(total, [total, x])
        shared = g_x.numel() > 0 and g_x.data_ptr() == g_total.data_ptr()
        return [g_x, g_x.stride(), shared]

    same(program)


@pytest.mark.parametrize(
    "values",
    [[[0.25, -2.0, -0.5], [0.0, -0.5, 0.5]], [[0.0, 1.0], [0.0, 2.0]], [[1.0, 2.0], [3.0, 4.0]]],
    ids=["one zero", "two zeros", "no zero"],
)
@pytest.mark.parametrize("create_graph", [False, True])
def test_the_gradient_of_a_product_of_all_elements_is_torchs_view(
    values: list[list[float]], create_graph: bool
) -> None:
    """torch's ``prod_backward`` with a zero: its formula over the flattened input, then
    ``view_as`` (the gradient is a view, the fuzzer's seed 380566); with two zeros outside
    ``create_graph``, ``zeros_like`` (not a view)."""

    def program(t: Any) -> Any:
        x = t.tensor(values, requires_grad=True)
        (g,) = t.autograd.grad(x.prod(), [x], create_graph=create_graph)
        return [g, g._base is not None, g[None]._base is not None, g.stride()]

    same(program)
