"""The strides of a copy or an alias, as torch 2.13 lays them out.

``detach()`` and ``.data`` share the tensor's strides; ``clone()`` and the ``*_like`` factories
use ``preserve_format``: a non-overlapping and dense tensor's strides are kept exactly (every
empty tensor is one, whatever its strides: a size-0 dimension), any other gets dense strides in
the order of its own (``infer_dense_strides``; an expanded dimension keeps its place)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

TENSORS: dict[str, Any] = {
    "empty_slice": lambda t: t.zeros(3, 4)[:, 2:2],
    "empty_transposed": lambda t: t.zeros(0, 3).t(),
    "empty_permuted": lambda t: t.zeros(2, 0, 3).permute(2, 0, 1),
    "empty_rows": lambda t: t.zeros(4, 5)[1:1],
    "empty_expanded": lambda t: t.zeros(1, 3).expand(0, 3),
    "empty_view": lambda t: t.zeros(0).view(0, 2, 3),
    "empty_stepped": lambda t: t.zeros(6, 4)[::2, 4:],
    "empty_fresh": lambda t: t.zeros(3, 0, 4),
    "transposed": lambda t: t.zeros(2, 3).t(),
    "stepped": lambda t: t.zeros(4, 6)[::2, ::3],
    "expanded_rows": lambda t: t.zeros(1, 3).expand(4, 3),
    "expanded_columns": lambda t: t.zeros(3, 1).expand(3, 4),
    "expanded_middle": lambda t: t.zeros(2, 1, 3).expand(2, 5, 3),
    "expanded_transposed": lambda t: t.zeros(1, 4).t().expand(4, 3),
    "sliced_3d": lambda t: t.zeros(2, 3, 4)[:, ::2],
    "every_other": lambda t: t.zeros(6)[::2],
}

MADE: dict[str, Any] = {
    "detach": lambda t, x: x.detach(),
    "data": lambda t, x: x.data,
    "clone": lambda t, x: x.clone(),
    "empty_like": lambda t, x: t.empty_like(x),
    "zeros_like": lambda t, x: t.zeros_like(x),
    "ones_like": lambda t, x: t.ones_like(x),
    "full_like": lambda t, x: t.full_like(x, 2.0),
    "contiguous": lambda t, x: x.contiguous(),
}


@pytest.mark.parametrize("made", MADE.values(), ids=MADE.keys())
@pytest.mark.parametrize("tensor", TENSORS.values(), ids=TENSORS.keys())
def test_strides_of_aliases_and_copies(tensor: Any, made: Any) -> None:
    def program(t: Any) -> Any:
        x = tensor(t)
        y = made(t, x)
        shown = y.shape if made is MADE["empty_like"] else y  # torch leaves its memory as it is
        return [shown, y.dtype, y.stride(), y.is_contiguous(), y.storage_offset()]

    same(program)


def test_a_copy_of_an_empty_alias_keeps_its_strides_too() -> None:
    same(lambda t: [t.zeros(3, 4)[:, 2:2].detach().clone().detach().stride()])


def test_an_op_with_a_number_lays_an_empty_result_out_as_torch() -> None:
    same(lambda t: [(t.zeros(2, 0, 3).permute(2, 0, 1) * 2).stride()])


ELEMENTWISE: dict[str, Any] = {
    "times_a_number": lambda t, x: x * 2,
    "plus_itself": lambda t, x: x + x,
    "minus_a_row": lambda t, x: x - t.ones(x.shape[-1]),
    "number_minus": lambda t, x: 1 - x,
    "times_a_0d_tensor": lambda t, x: x * t.tensor(3.0),
    "divided_by_a_number": lambda t, x: x / 2,
    "number_divided_by": lambda t, x: 2 / x,
    "to_a_power": lambda t, x: x**2,
    "to_a_tensor_power": lambda t, x: x ** t.ones(x.shape[-1]),
    "number_to_the_power": lambda t, x: 2**x,
    "add_scaled": lambda t, x: x.add(t.ones(x.shape[-1]), alpha=2),
    "compared_with_a_number": lambda t, x: x > 0,
    "compared_with_a_row": lambda t, x: x == t.zeros(x.shape[-1]),
    "row_compared_with": lambda t, x: t.zeros(1, x.shape[-1]) < x,
}


@pytest.mark.parametrize("op", ELEMENTWISE.values(), ids=ELEMENTWISE.keys())
@pytest.mark.parametrize(
    "tensor",
    [TENSORS[name] for name in TENSORS if name.startswith("empty")],
    ids=[name for name in TENSORS if name.startswith("empty")],
)
def test_an_elementwise_op_lays_an_empty_result_out_as_torch(tensor: Any, op: Any) -> None:
    """torch's TensorIterator: operands all of the result's shape give a row-major result (an
    empty tensor is contiguous), others order the dimensions by the operands' strides with no
    ``max(size, 1)`` (the dimensions after a size-0 one get stride 0)."""

    def program(t: Any) -> Any:
        y = op(t, tensor(t))
        return [y, y.stride(), y.is_contiguous()]

    same(program)


def test_the_clone_of_a_permuted_3d_tensor_keeps_its_layout() -> None:
    same(lambda t: [t.zeros(2, 3, 4).permute(2, 0, 1).clone().stride()])


PERMUTED: dict[str, Any] = {
    "clone": lambda t, x, y: x.clone(),
    "neg": lambda t, x, y: -x,
    "exp": lambda t, x, y: x.exp(),
    "times a number": lambda t, x, y: x * 2,
    "plus itself": lambda t, x, y: x + x,
    "plus a row-major tensor": lambda t, x, y: x + y,
    "times a row-major tensor": lambda t, x, y: x * y,
    "compared with a row-major tensor": lambda t, x, y: x < y,
    "row-major plus it": lambda t, x, y: y + x,
    "plus a row": lambda t, x, y: x + t.ones(3),
    "relu": lambda t, x, y: x.relu(),
    "compared": lambda t, x, y: x > 0,
}


@pytest.mark.parametrize("op", PERMUTED.values(), ids=PERMUTED.keys())
def test_a_result_of_a_permuted_3d_tensor_keeps_or_makes_torchs_layout(op: Any) -> None:
    """A fresh result whose elements fill their memory in any order of the dims keeps that
    order (torch's ``preserve_format`` and TensorIterator), and behaves as torch's: strides,
    contiguity, a view of it, its storage, a gradient through it."""

    def program(t: Any) -> Any:
        x = t.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1).requires_grad_()
        y = t.ones(4, 2, 3)
        r = op(t, x, y)
        facts = [r, r.stride(), r.is_contiguous(), r.untyped_storage().nbytes()]
        facts += [r.flatten(), r.transpose(0, 2).stride(), r[1:, :, 0], r.contiguous().stride()]
        if r.requires_grad:
            (g,) = t.autograd.grad((r * t.arange(24.0).reshape(4, 2, 3)).sum(), x)
            facts += [g, g.stride()]
        return facts

    same(program)


def test_a_permuted_gradient_is_stolen_into_grad_as_torch_steals_it() -> None:
    """A leaf's first gradient in a permuted dense layout is kept as ``.grad`` (torch reuses a
    non-overlapping and dense gradient), its strides the gradient's."""

    def program(t: Any) -> Any:
        x = t.ones(4, 2, 3, requires_grad=True)
        g = t.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
        x.backward(g)
        return [x.grad, x.grad.stride(), x.grad.data_ptr() == g.data_ptr()]

    same(program)


MIXED: dict[str, Any] = {
    "transposed / row-major": lambda t, x, y: x / y,
    "row-major / transposed": lambda t, x, y: y / x,
    "transposed - row-major": lambda t, x, y: x - y,
    "transposed + row-major, alpha": lambda t, x, y: x.add(y, alpha=2),
    "transposed ** row-major": lambda t, x, y: x.abs() ** y,
    "transposed * row-major": lambda t, x, y: x * y,
    "transposed >= row-major": lambda t, x, y: x >= y,
    "transposed + a column": lambda t, x, y: x + y[:, :1],
    "a column + transposed": lambda t, x, y: y[:, :1] + x,
    "transposed + a row": lambda t, x, y: x + y[0],
    "transposed + transposed": lambda t, x, y: x + y.t().contiguous().t(),
    "transposed + stepped": lambda t, x, y: x + t.ones(3, 4)[:, ::2],
    "stepped + transposed": lambda t, x, y: t.ones(3, 4)[:, ::2] + x,
    "transposed float32 * float64": lambda t, x, y: x * y.double(),
    "transposed * a 0-d tensor": lambda t, x, y: x * t.tensor(2.0),
    # (their gradients' layouts are not torch's yet: the backward builds its masks with numpy)
    "maximum": lambda t, x, y: t.maximum(x.detach(), y),
    "minimum, row-major first": lambda t, x, y: t.minimum(y, x.detach()),
    "clamp by tensors": lambda t, x, y: x.detach().clamp(min=y, max=y + 1),
    "clamp_min by a tensor": lambda t, x, y: x.detach().clamp_min(y),
    "where, a row-major condition first": lambda t, x, y: t.where(y > 0, x.detach(), y),
    "where, a transposed condition": lambda t, x, y: t.where(x > 0, y, x.detach()),
    "remainder": lambda t, x, y: t.remainder(x, y),
    "floor_divide": lambda t, x, y: t.floor_divide(x, y),
    "div, rounding": lambda t, x, y: t.div(x, y, rounding_mode="trunc"),
    "bitwise and": lambda t, x, y: (x > 0) & (y > 0),
    "isclose": lambda t, x, y: t.isclose(x, y),
}


@pytest.mark.parametrize("op", MIXED.values(), ids=MIXED.keys())
def test_an_elementwise_result_of_two_layouts_follows_torchs_iterator(op: Any) -> None:
    """torch's TensorIterator orders the dimensions by the operands' strides, the first operand
    that orders two dimensions deciding: ``x.t() / y`` is laid out like ``x.t()``, ``y / x.t()``
    like ``y``; a broadcast dimension (stride 0) decides nothing."""

    def program(t: Any) -> Any:
        x = t.tensor([[2.0, -1.0, 1.5], [-1.0, -0.5, 1.5]], requires_grad=True).t()
        y = t.tensor([[2.0, -1.0], [-1.5, -0.5], [-0.5, -1.0]])
        r = op(t, x, y)
        facts = [r, r.stride(), r.is_contiguous(), r.view(-1) if r.is_contiguous() else None]
        if r.requires_grad:
            (g,) = t.autograd.grad((r * t.arange(6.0).view(3, 2)).sum(), x)
            facts += [g, g.stride()]
        return facts

    same(program)


def test_the_issues_program() -> None:
    def program(t: Any) -> Any:
        b = t.tensor([[2.0, -1.0, 1.5], [-1.0, -0.5, 1.5]]).t()
        return (b / t.tensor([[2.0, -1.0], [-1.5, -0.5], [-0.5, -1.0]])).stride()

    assert same(program) == (1, 3)


SHAPES: dict[str, Any] = {
    "3d permuted + 3d": lambda t: (t.ones(2, 3, 4).permute(2, 0, 1), t.ones(4, 2, 3)),
    "3d + 3d permuted": lambda t: (t.ones(4, 2, 3), t.ones(2, 3, 4).permute(2, 0, 1)),
    "two permutations": lambda t: (
        t.ones(2, 3, 4).permute(2, 0, 1),
        t.ones(3, 4, 2).permute(1, 2, 0),
    ),
    "size-1 dims": lambda t: (t.ones(1, 3, 4).permute(2, 0, 1), t.ones(4, 1, 3)),
    "broadcast middle": lambda t: (t.ones(2, 1, 4).permute(2, 1, 0), t.ones(4, 3, 2)),
    "same permutation": lambda t: (
        t.ones(2, 3, 4).permute(1, 2, 0),
        t.ones(2, 3, 4).permute(1, 2, 0),
    ),
    "permuted + expanded": lambda t: (
        t.ones(2, 3, 4).permute(2, 0, 1),
        t.ones(1, 2, 1).expand(4, 2, 3),
    ),
    "empty permuted + empty": lambda t: (t.ones(2, 0, 4).permute(2, 0, 1), t.ones(4, 2, 0)),
}


@pytest.mark.parametrize("operands", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("op", ["add", "mul", "sub", "div", "eq"])
def test_the_layout_of_two_operands_of_more_dims(operands: Any, op: str) -> None:
    def program(t: Any) -> Any:
        a, b = operands(t)
        r = getattr(t, op)(a * 2, b)
        return [r, r.stride(), r.is_contiguous()]

    same(program)
