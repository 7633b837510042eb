"""``square`` (torch's ``pow(self, 2)``: ``PowBackward0`` with exponent 2) and ``nan_to_num``
(``NanToNumBackward0``): torch's values and dtypes (bool squares to int64, integers and bools come
back from ``nan_to_num`` as copies), refusals, nodes and what they save, gradients, and the
in-place forms ``square_`` and ``nan_to_num_``."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same
from support.gradients import plain, saved_values, weighted_backward

NAN, INF = float("nan"), float("inf")
TENSORS: dict[str, Any] = {
    "float32": lambda t: t.tensor([[NAN, INF, -INF], [1.5, -2.0, 0.0]]),
    "float64": lambda t: t.tensor([NAN, INF, -INF, 3.0], dtype=t.float64),
    "int64": lambda t: t.tensor([[3, -2], [7, 0]]),
    "int32": lambda t: t.tensor([2, 3, -4], dtype=t.int32),
    "bool": lambda t: t.tensor([True, False]),
    "0-d": lambda t: t.tensor(NAN),
    "0-d int": lambda t: t.tensor(-3),
    "empty": lambda t: t.zeros(2, 0),
    "transposed": lambda t: t.tensor([[NAN, 1.0], [INF, -INF], [2.0, 0.5]]).t(),
}
CALLS: dict[str, Any] = {
    "x.square()": lambda t, x: x.square(),
    "torch.square(x)": lambda t, x: t.square(x),
    "x.nan_to_num()": lambda t, x: x.nan_to_num(),
    "x.nan_to_num(1.0, 2.0, -3.0)": lambda t, x: x.nan_to_num(1.0, 2.0, -3.0),
    "nan=2, posinf=1 (ints)": lambda t, x: t.nan_to_num(x, nan=2, posinf=1),
    "neginf=-1e300 (beyond float32)": lambda t, x: x.nan_to_num(neginf=-1e300),
    "posinf=1e300": lambda t, x: t.nan_to_num(x, posinf=1e300),
    "explicit Nones": lambda t, x: x.nan_to_num(nan=None, posinf=None, neginf=None),
    "a 0-d tensor as nan": lambda t, x: x.nan_to_num(t.tensor(1.0)),
    "nan=True": lambda t, x: x.nan_to_num(nan=True),
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("tensor", TENSORS)
def test_values_and_dtypes_are_torchs(call: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        y = CALLS[call](t, x)
        return y, y.is_contiguous(), x  # x unchanged

    same(program)


INPLACE: dict[str, Any] = {
    "x.square_()": lambda t, x: x.square_(),
    "torch.square_(x)": lambda t, x: t.square_(x),
    "x.nan_to_num_()": lambda t, x: x.nan_to_num_(),
    "torch.nan_to_num_(x, 1.0, 2.0)": lambda t, x: t.nan_to_num_(x, 1.0, 2.0),
    "x.nan_to_num_(neginf=5)": lambda t, x: x.nan_to_num_(neginf=5),
}


@pytest.mark.parametrize("call", INPLACE)
@pytest.mark.parametrize("tensor", TENSORS)
def test_in_place_forms_are_torchs(call: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        out = INPLACE[call](t, x)
        return out is x, x, x._version

    same(program)


REFUSALS: dict[str, Any] = {
    "square(1)": lambda t, x: x.square(1),
    "square_(1)": lambda t, x: x.square_(1),
    "torch.square(list)": lambda t, x: t.square([1.0]),
    "torch.square(x, 2)": lambda t, x: t.square(x, 2),
    "nan_to_num(str)": lambda t, x: x.nan_to_num("a"),
    "nan_to_num(posinf=str)": lambda t, x: x.nan_to_num(posinf="a"),
    "nan_to_num four numbers": lambda t, x: x.nan_to_num(1, 2, 3, 4),
    "nan_to_num(foo=1)": lambda t, x: x.nan_to_num(foo=1),
    "torch.nan_to_num(x, str)": lambda t, x: t.nan_to_num(x, "a"),
    "torch.nan_to_num(list)": lambda t, x: t.nan_to_num([1.0]),
    "nan_to_num_(str)": lambda t, x: x.nan_to_num_("a"),
    "torch.nan_to_num_(x, neginf=str)": lambda t, x: t.nan_to_num_(x, neginf="a"),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_type_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t, t.tensor([1.0, NAN])), raises="TypeError")


def test_in_place_refusals_are_torchs() -> None:
    same(lambda t: t.tensor([True]).square_())  # pow gives int64: not castable to bool
    same(lambda t: t.tensor([1.0], requires_grad=True).square_())  # a leaf that requires grad
    same(lambda t: t.tensor([1.0], requires_grad=True).nan_to_num_())
    same(lambda t: t.ones(1, 3).expand(2, 3).nan_to_num_())  # overlapping memory


GRADS: dict[str, Any] = {
    "square": lambda t, x: x.square(),
    "torch.square": lambda t, x: t.square(x),
    "square_ of a clone": lambda t, x: x.clone().square_(),
    "nan_to_num": lambda t, x: x.nan_to_num(),
    "nan_to_num(1, 2, 3)": lambda t, x: t.nan_to_num(x, 1.0, 2.0, 3.0),
    "nan_to_num_ of a clone": lambda t, x: x.clone().nan_to_num_(posinf=4.0),
}


@pytest.mark.parametrize("case", GRADS)
def test_nodes_saved_values_and_gradients_are_torchs(case: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[NAN, 1.5, INF], [-INF, -2.0, 0.0]], requires_grad=True)
        y = GRADS[case](t, x)
        fn = y.grad_fn
        saved = saved_values(fn)
        weighted_backward(t, y)
        return y, fn, saved, grad_of(x)

    same(program)


def test_a_write_into_the_saved_input_is_seen_by_backward() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([NAN, 1.5], requires_grad=True)
        h = x * 1
        y = h.nan_to_num()
        h.add_(1)
        return error_of(lambda: y.sum().backward()) or grad_of(x)

    same(program)


def test_second_order_gradients() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        out = (x.square() * x).sum() + (x.nan_to_num() ** 3).sum()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        return gx, plain(t.autograd.grad(gx.sum(), x))

    same(program)
