"""``cumprod`` (and ``cumprod_``) and ``nansum``: torch's values and dtypes (int64 for integers
and bools, ``dtype=``), refusals, nodes (``CumprodBackward0``, ``NansumBackward0``) and what they
save, and gradients, first and second order, with zeros in the product and NaN in the sum."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same
from support.gradients import plain, same_node_and_gradients, saved_values

NAN, INF = float("nan"), float("inf")
TENSORS: dict[str, Any] = {
    "float32": lambda t: t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]),
    "float64 with NaN": lambda t: t.tensor([[1.5, NAN], [NAN, NAN]], dtype=t.float64),
    "float32 with NaN and inf": lambda t: t.tensor([[NAN, INF, 2.0], [-INF, 1.0, NAN]]),
    "int64": lambda t: t.tensor([[3, -2, 5], [7, 1, 0]]),
    "int32": lambda t: t.tensor([2, 3, -4], dtype=t.int32),
    "bool": lambda t: t.tensor([True, False, True]),
    "0-d": lambda t: t.tensor(2.5),
    "0-d NaN": lambda t: t.tensor(NAN),
    "empty": lambda t: t.zeros(2, 0),
    "empty rows": lambda t: t.zeros(0, 3),
    "3-d": lambda t: t.arange(24.0).reshape(2, 3, 4) / 7,
    "transposed": lambda t: t.tensor([[1.5, 0.0, 3.0], [0.5, NAN, -1.0]]).t(),
}
CUMPROD: dict[str, Any] = {
    "dim 0": lambda t, x: x.cumprod(0),
    "dim -1": lambda t, x: t.cumprod(x, -1),
    "dim=1": lambda t, x: x.cumprod(dim=1),
    "dtype float64": lambda t, x: x.cumprod(0, dtype=t.float64),
    "dtype int32": lambda t, x: t.cumprod(x, dim=0, dtype=t.int32),
    "dtype bool": lambda t, x: x.cumprod(0, dtype=t.bool),
    "dim 2": lambda t, x: x.cumprod(2),
}
NANSUM: dict[str, Any] = {
    "all": lambda t, x: x.nansum(),
    "all dtype": lambda t, x: t.nansum(x, dtype=t.float64),
    "dim 0": lambda t, x: x.nansum(0),
    "dim -1 keepdim": lambda t, x: t.nansum(x, -1, True),
    "dims (0, 1)": lambda t, x: x.nansum((0, 1)),
    "dims []": lambda t, x: x.nansum([]),
    "dim=None": lambda t, x: x.nansum(dim=None),
    "dims (0, 0)": lambda t, x: x.nansum((0, 0)),
    "keepdim=True": lambda t, x: x.nansum(keepdim=True),
    "torch.nansum(x, None, True)": lambda t, x: t.nansum(x, None, True),
    "dim=1 keepdim= dtype=int64": lambda t, x: x.nansum(dim=1, keepdim=False, dtype=t.int64),
    "dim 2": lambda t, x: x.nansum(2),
}


@pytest.mark.parametrize("form", [*CUMPROD, *(f"nansum {k}" for k in NANSUM)])
@pytest.mark.parametrize("tensor", TENSORS)
def test_values_dtypes_and_refusals_are_torchs(form: str, tensor: str) -> None:
    op = NANSUM[form[7:]] if form.startswith("nansum ") else CUMPROD[form]
    same(lambda t: op(t, TENSORS[tensor](t)))


REFUSALS: dict[str, Any] = {
    "cumprod()": lambda t, x: x.cumprod(),
    "cumprod(dim=None)": lambda t, x: x.cumprod(dim=None),
    "torch.cumprod(x)": lambda t, x: t.cumprod(x),
    "torch.cumprod(x, str)": lambda t, x: t.cumprod(x, "a"),
    "cumprod_(0.5)": lambda t, x: x.cumprod_(0.5),
    "nansum(str)": lambda t, x: x.nansum("a"),
    "torch.nansum(x, str)": lambda t, x: t.nansum(x, "a"),
    "nansum(0, 1)": lambda t, x: x.nansum(0, 1),
    "torch.nansum(list)": lambda t, x: t.nansum([1.0]),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_type_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t, t.tensor([1.0, NAN])), raises="TypeError")


def test_integer_results_of_an_input_that_requires_grad_are_refused() -> None:
    same(lambda t: t.tensor([1.0], requires_grad=True).cumprod(0, dtype=t.int64))
    same(lambda t: t.tensor([1.0], requires_grad=True).nansum(dtype=t.int64))
    same(lambda t: t.tensor([1.0], requires_grad=True).nansum(0, dtype=t.int32))


GRADS: dict[str, Any] = {
    "cumprod " + k: v for k, v in CUMPROD.items() if "int" not in k and "bool" not in k
}
GRADS.update({"nansum " + k: v for k, v in NANSUM.items() if "int" not in k and "(0, 0)" not in k})
VALUES: dict[str, list[float]] = {
    "no zero": [1.5, -2.0, 3.0, 0.5, 4.0, -1.0],
    "one zero": [1.5, 0.0, 3.0, 0.5, 4.0, -1.0],
    "two zeros in a row": [0.0, 2.0, 0.0, 0.5, 4.0, -1.0],
    "a zero in each row": [0.0, 2.0, 3.0, 0.5, 4.0, 0.0],
    "NaN": [NAN, 2.0, 3.0, 0.5, NAN, NAN],
}


@pytest.mark.parametrize("case", [k for k in GRADS if "dim 2" not in k])
@pytest.mark.parametrize("values", VALUES)
def test_nodes_saved_values_and_gradients_are_torchs(case: str, values: str) -> None:
    same_node_and_gradients(
        lambda t: t.tensor(VALUES[values], requires_grad=True),
        lambda t, x: GRADS[case](t, x.reshape(2, 3)),
    )


def test_gradients_along_a_longer_dim_with_zeros_are_torchs() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.5, 2.0, 0.0, 3.0, -1.5, 0.0, 2.5], [1.1, -0.9, 1.2, 0.0, 1.3, 0.8, -1.0]])
        x = x.t().contiguous().requires_grad_()
        y = x.cumprod(0)
        (y * t.arange(1.0, 15.0).reshape(7, 2)).sum().backward()
        return y, grad_of(x)

    same(program)


@pytest.mark.parametrize("op", ["cumprod", "nansum"])
def test_gradients_of_0d_and_empty_tensors_are_torchs(op: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(2.5, requires_grad=True)
        e = t.zeros(2, 0, requires_grad=True)
        y = getattr(x, op)(0)
        z = getattr(e, op)(1)
        (y * 3).backward()
        z.sum().backward()
        return y, y.grad_fn, z, grad_of(x), grad_of(e)

    same(program)


@pytest.mark.parametrize("values", ["no zero", "one zero", "two zeros in a row", "NaN"])
def test_second_order_gradients(values: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(VALUES[values], requires_grad=True).reshape(2, 3)
        out = (x.cumprod(1) * t.tensor([1.0, -2.0, 3.0])).sum() + (x.nansum(0) ** 2).sum()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        return gx, plain(t.autograd.grad((gx * t.tensor([1.0, 0.5, -1.0])).sum(), x))

    same(program)


@pytest.mark.parametrize("tensor", ["float32", "int64", "int32", "bool", "0-d"])
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_cumprod_in_place_is_torchs(tensor: str, dtype: str | None) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        out = x.cumprod_(0, dtype=None if dtype is None else getattr(t, dtype))
        return out is x, out, x._version

    same(program)


def test_cumprod_in_place_records_its_node() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.5, 0.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        y = x.clone()
        y.cumprod_(1)
        fn = y.grad_fn
        saved = saved_values(fn)
        (y * t.arange(6.0).reshape(2, 3)).sum().backward()
        leaf = t.tensor([1.0], requires_grad=True)
        try:
            leaf.cumprod_(0)
        except RuntimeError as e:
            refused = str(e)
        return y, fn, saved, grad_of(x), refused, y._version

    same(program)


def test_a_write_into_the_saved_result_is_seen_by_backward() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.5, 2.0], requires_grad=True)
        y = x.cumprod(0)
        y.add_(1)
        return error_of(lambda: y.sum().backward()) or grad_of(x)

    same(program)


@pytest.mark.parametrize(
    "values",
    [
        [2.0, INF, 3.0],
        [2.0, 3.0, INF],
        [NAN, 0.0, 3.0],
        [INF, 2.0, 0.0, 3.0],
        [0.0, INF, 2.0, 0.0, NAN],
        [1.5, 0.0, -2.0, 0.5, 0.0, 4.0],
    ],
)
@pytest.mark.parametrize("graph", [False, True])
def test_gradients_where_nan_or_an_infinity_meets_a_zero_are_torchs(
    values: list[float], graph: bool
) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(values, requires_grad=True)
        y = x.cumprod(0)
        (gx,) = t.autograd.grad((y * t.arange(1.0, len(values) + 1.0)).sum(), x, create_graph=graph)
        return y, plain(gx)

    same(program)
