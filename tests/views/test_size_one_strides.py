"""A size-1 dim's stride, which torch keeps and orders by, in the layout of an op's result.

A slice or a transpose can give a size-1 dim any stride (``x[:, ::2]`` of a ``(2, 1, 3)``
tensor has strides ``(3, 6, 1)``); the tensor is still contiguous to torch. A copy
(``preserve_format``: ``clone``, ``float()``...) keeps such strides exactly; an elementwise op
with a number, whose operands are not all of one shape, has TensorIterator order the dims by
their strides, the size-1 dims' included; one whose operands all have one shape and are all
channels-last contiguous (rank 4) gives a channels-last result. numpy's flags ignore a size-1
dim's stride, so each of these is a difference it would hide.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from support.differential import same


def _grid(t: Any, *shape: int) -> Any:
    return (t.arange(float(2 * 3 * 4)) - 7.5)[: math.prod(shape)].view(shape)


TENSORS: dict[str, Any] = {
    "a stepped size-1 dim (fuzz 40550)": lambda t: t.zeros(2, 1, 3)[:, ::2],
    "a transposed column (fuzz 30026)": lambda t: _grid(t, 4).view(4, 1)[::2].transpose(0, -1),
    "a transposed slice (fuzz 42322)": lambda t: _grid(t, 2, 1, 3)[..., :1].transpose(0, -1),
    "a (1, 1) diagonal view (fuzz 43162)": lambda t: _grid(t, 1, 3).diagonal(1).view(1, 1),
    "a column of a transpose": lambda t: _grid(t, 3, 4).t()[:, :1],
    "a row of a transpose": lambda t: _grid(t, 3, 4).t()[:1],
    "a permuted size-1 dim": lambda t: _grid(t, 2, 1, 3).permute(1, 2, 0),
    "channels-last contiguous": lambda t: t.empty_strided((1, 2, 1, 2), (4, 1, 2, 2)).fill_(2),
    "an unsqueezed transpose": lambda t: _grid(t, 2, 3).t().unsqueeze(1),
}

OPS: dict[str, Any] = {
    "* 2": lambda t, x: x * 2,
    "+ 1": lambda t, x: x + 1,
    "> 0": lambda t, x: x > 0,
    "1 /": lambda t, x: 1 / x,
    "** 2": lambda t, x: x**2,
    "neg": lambda t, x: -x,
    "abs": lambda t, x: x.abs(),
    "relu": lambda t, x: x.relu(),
    "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x, 0.1),
    "sign": lambda t, x: x.sign(),
    "floor": lambda t, x: x.floor(),
    "sqrt": lambda t, x: x.abs().sqrt(),
    "exp": lambda t, x: x.exp(),
    "+ itself": lambda t, x: x + x,
    "where": lambda t, x: t.where(x > 0, x, x),
    "clone": lambda t, x: x.clone(),
    "float64": lambda t, x: x.double(),
    "int64": lambda t, x: x.long(),
    "bool": lambda t, x: x.bool(),
    "contiguous": lambda t, x: x.contiguous(),
}


@pytest.mark.parametrize("op", OPS.values(), ids=OPS.keys())
@pytest.mark.parametrize("tensor", TENSORS.values(), ids=TENSORS.keys())
def test_the_result_keeps_or_orders_by_a_size_1_dims_stride(tensor: Any, op: Any) -> None:
    def program(t: Any) -> Any:
        x = tensor(t)
        y = op(t, x)
        return x.stride(), y, y.stride()

    same(program)


REDUCED: dict[str, Any] = {
    "sum(0, keepdim=True) (fuzz 50088)": lambda t, x: x.sum(0, keepdim=True),
    "sum(-1, keepdim=True)": lambda t, x: x.sum(-1, keepdim=True),
    "sum((0, 1), keepdim=True)": lambda t, x: x.sum((0, 1), keepdim=True),
    "mean(-1)": lambda t, x: x.mean(-1),
    "prod(0, keepdim=True)": lambda t, x: x.prod(0, keepdim=True),
    "all(0, keepdim=True)": lambda t, x: x.all(0, keepdim=True),
    "any(-1, keepdim=True)": lambda t, x: x.any(-1, keepdim=True),
    "std(-1, keepdim=True)": lambda t, x: x.std(-1, keepdim=True),
    "nansum(0, keepdim=True)": lambda t, x: x.nansum(0, keepdim=True),
    "sort(0).values": lambda t, x: x.sort(0).values,
    "sort(0).indices": lambda t, x: x.sort(0).indices,
    "argsort(0)": lambda t, x: x.argsort(0),
}

REDUCED_TENSORS: dict[str, Any] = {
    "a transpose": lambda t: _grid(t, 3, 4).t(),
    "a permuted 3-d": lambda t: _grid(t, 2, 3, 4).permute(2, 0, 1),
    "a transposed slice": lambda t: _grid(t, 2, 3, 4)[:, :1].transpose(0, 2),
    "a row of a transpose": lambda t: _grid(t, 3, 4).t()[:1],
}


@pytest.mark.parametrize("op", REDUCED.values(), ids=REDUCED.keys())
@pytest.mark.parametrize("tensor", REDUCED_TENSORS.values(), ids=REDUCED_TENSORS.keys())
def test_a_reductions_result_is_row_major_and_sorts_is_laid_out_as_its_input(
    tensor: Any, op: Any
) -> None:
    def program(t: Any) -> Any:
        y = op(t, tensor(t))
        return y, y.stride()

    same(program)


EXPANDED: dict[str, Any] = {
    "a new size-1 dim (fuzz program 60331)": lambda t: t.ones(4).expand(1, 4),
    "new size-1 dims": lambda t: t.ones(4).expand(1, 1, 4),
    "a new dim of 3 then of 1": lambda t: t.ones(4).expand(3, 1, 4),
    "a new size-1 dim before an expanded one": lambda t: t.ones(3, 1).expand(1, 3, 5),
    "a new size-1 dim over a transpose": lambda t: t.ones(2, 3).t().expand(1, 3, 2),
    "a 0-d tensor": lambda t: t.tensor(1.0).expand(1, 3),
    "a 0-d tensor to size 1": lambda t: t.tensor(1.0).expand(1, 1),
    "an empty tensor": lambda t: t.ones(0).expand(1, 0),
}


@pytest.mark.parametrize("tensor", EXPANDED.values(), ids=EXPANDED.keys())
def test_a_new_size_1_dim_of_expand_steps_over_the_dim_after_it(tensor: Any) -> None:
    def program(t: Any) -> Any:
        y = tensor(t)
        return y, y.stride()

    same(program)


def test_an_expanded_view_given_its_own_values_through_a_new_dim() -> None:
    """Fuzz program 60331: ``t.unsqueeze(0)[...] = t`` copies ``t`` expanded to ``(1, 4)``,
    strides ``(4, 1)``: the same data, so copy_ returns at once (and an inference tensor's
    version refuses to move)."""

    def program(t: Any) -> Any:
        x = t.tensor([-3, 3, 1, 3])
        x.unsqueeze(0)[...] = x
        with t.inference_mode():
            y = t.tensor([-3, 3, 1, 3])
        try:
            y.unsqueeze(0)[...] = y
        except RuntimeError as e:
            return x, x._version, str(e)
        return x, x._version

    same(program)


INTEGER_INPUTS: dict[str, Any] = {
    # fuzz 90935: a chunk of a transposed int64 tensor, (1, 3) with strides (1, 2)
    "a chunk of a transposed int tensor": lambda t: (
        t.tensor([[3, 2], [-2, 3], [0, 0]]).swapaxes(0, 1).chunk(2)[-1]
    ),
    # fuzz 91098: its bool and int32 cousins, a column of a transposed tensor, a stepped row
    "a permuted chunk of ones": lambda t: t.ones(3, 2, dtype=t.int64).permute(1, 0).chunk(2)[-1],
    "a bool row": lambda t: (t.arange(6).view(3, 2) > 2).t()[1:],
    "an int32 column": lambda t: t.ones(3, 4, dtype=t.int32).t()[:, :1],
    "a stepped int64 row": lambda t: t.ones(4, 3, dtype=t.int64)[::2, :1],
}


@pytest.mark.parametrize("op", ["tanh", "sigmoid", "exp", "sqrt", "log1p"])
@pytest.mark.parametrize("tensor", INTEGER_INPUTS.values(), ids=INTEGER_INPUTS.keys())
def test_an_integer_input_of_a_float_function_is_cast_first(tensor: Any, op: str) -> None:
    """A float function of an integer or bool tensor casts it first (TensorIterator's
    temporary, made by ``to``: ``preserve_format``'s layout) and lays its result out as that
    cast: a (1, 3) row of strides (1, 2) is cast to strides (1, 1), so its result is row-major."""

    def program(t):
        x = tensor(t)
        y = getattr(x, op)()
        return [x.stride(), y, y.stride()]

    same(program)
