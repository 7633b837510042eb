"""``gather``, ``index_select`` and ``flip``: torch's values, dtypes, layouts, refusals (in
torch's order), nodes and what they save, gradients (summed where an index repeats) and second
order gradients (the backward's ``ScatterAddBackward0``/``IndexAddBackward0``/``FlipBackward0``)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same
from support.gradients import (
    same_node_and_gradients,
    saved_values,
    second_order,
)


def _x(t: Any) -> Any:
    return t.arange(6.0).reshape(2, 3)


FORWARD: dict[str, Any] = {
    "gather dim 1": lambda t: _x(t).gather(1, t.tensor([[0, 2], [1, 0]])),
    "gather dim 0 repeats": lambda t: _x(t).gather(0, t.tensor([[1, 0, 1], [1, 1, 1]])),
    "gather dim -1 int32 index": lambda t: _x(t).gather(-1, t.tensor([[2], [0]], dtype=t.int32)),
    "gather smaller index": lambda t: t.gather(_x(t), 0, t.tensor([[1]])),
    "gather keywords": lambda t: t.gather(_x(t), dim=1, index=t.tensor([[1], [2]])),
    "gather sparse_grad": lambda t: _x(t).gather(1, t.tensor([[1], [2]]), sparse_grad=True),
    "gather 0-d": lambda t: t.tensor(3.0).gather(0, t.tensor([0, 0])),
    "gather 0-d index": lambda t: t.arange(3).gather(0, t.tensor(2)),
    "gather empty index": lambda t: _x(t).gather(1, t.zeros(3, 0, dtype=t.int64)),
    "gather int64": lambda t: t.tensor([1, 2, 3]).gather(0, t.tensor([2, 2])),
    "gather bool": lambda t: t.tensor([True, False]).gather(0, t.tensor([1])),
    "gather transposed": lambda t: _x(t).t().gather(0, t.tensor([[1, 0]])),
    "index_select dim 1": lambda t: _x(t).index_select(1, t.tensor([2, 0, 2])),
    "index_select dim 0": lambda t: t.index_select(_x(t), 0, t.tensor([1, 1, 0])),
    "index_select int32": lambda t: _x(t).index_select(-1, t.tensor([2, 0], dtype=t.int32)),
    "index_select 0-d index": lambda t: _x(t).index_select(1, t.tensor(1)),
    "index_select 0-d": lambda t: t.tensor(3.0).index_select(0, t.tensor([0])),
    "index_select empty index": lambda t: _x(t).index_select(0, t.tensor([], dtype=t.int64)),
    "index_select transposed": lambda t: _x(t).t().index_select(0, t.tensor([1])),
    "index_select 3-d": lambda t: t.arange(24).reshape(2, 3, 4).index_select(2, t.tensor([3, 0])),
    "index_select empty self": lambda t: t.zeros(2, 0).index_select(0, t.tensor([1, 0])),
    "index_select empty self 3-d": lambda t: t.zeros(2, 0, 3).index_select(-1, t.tensor([2])),
    "flip 0": lambda t: _x(t).flip(0),
    "flip both": lambda t: _x(t).flip(0, 1),
    "flip list": lambda t: _x(t).flip([-1]),
    "flip none": lambda t: _x(t).flip([]),
    "flip fn": lambda t: t.flip(_x(t), (0, -1)),
    "flip 0-d": lambda t: t.tensor(2.0).flip(-1),
    "flip empty": lambda t: t.zeros(0, 3).flip(0),
    "flip int64": lambda t: t.tensor([1, 2]).flip(0),
    "flip transposed": lambda t: _x(t).t().flip(0),
}


@pytest.mark.parametrize("form", FORWARD)
def test_values_dtypes_and_layouts_are_torchs(form: str) -> None:
    def program(t: Any) -> Any:
        y = FORWARD[form](t)
        return y, y.stride(), y.is_contiguous(), y._base is None

    same(program)


def test_results_are_new_tensors() -> None:
    def program(t: Any) -> Any:
        x = _x(t)
        ys = [x.gather(1, t.tensor([[0], [1]])), x.index_select(1, t.tensor([0])), x.flip(0)]
        x.add_(100)
        return ys, [y._version for y in ys], x._version

    same(program)


REFUSALS: dict[str, Any] = {
    "gather dim out of range": lambda t: _x(t).gather(2, t.tensor([[0]]).float()),
    "gather float index": lambda t: _x(t).gather(1, t.tensor([0.0])),
    "gather index dims": lambda t: _x(t).gather(1, t.tensor([0, 1])),
    "gather 0-d self 2-d index": lambda t: t.tensor(3.0).gather(0, t.tensor([[0]])),
    "gather index too large": lambda t: _x(t).gather(0, t.tensor([[0, 1, 1, 0]])),
    "gather out of bounds": lambda t: _x(t).gather(1, t.tensor([[1, 9], [9, 1]])),
    "gather negative index": lambda t: _x(t).gather(1, t.tensor([[-1]])),
    "gather 0-d out of bounds": lambda t: t.tensor(3.0).gather(0, t.tensor([1])),
    "index_select dim": lambda t: _x(t).index_select(5, t.tensor([[5]]).float()),
    "index_select matrix": lambda t: _x(t).index_select(1, t.tensor([[5]]).float()),
    "index_select float": lambda t: _x(t).index_select(1, t.tensor([1.0])),
    "index_select dim 1 bounds": lambda t: _x(t).index_select(1, t.tensor([1, 7, 9])),
    "index_select dim 1 negative": lambda t: _x(t).index_select(1, t.tensor([-1])),
    "index_select dim 0 bounds": lambda t: _x(t).index_select(0, t.tensor([0, -3])),
    "index_select 1-d bounds": lambda t: t.arange(6.0).index_select(0, t.tensor([6])),
    "index_select 0-d bounds": lambda t: t.tensor(3.0).index_select(0, t.tensor([1])),
    # fuzz 641479: a 0-d self takes one index, checked before the index's dtype and range
    "index_select 0-d, two indices": lambda t: t.tensor(3.0).index_select(0, t.tensor([0, 0])),
    "index_select 0-d, none": lambda t: t.tensor(3.0).index_select(-1, t.tensor([])),
    "index_select 0-d, two out of range": lambda t: t.tensor(3).index_select(0, t.tensor([1, 0])),
    "index_select empty axis": lambda t: t.zeros(2, 0).index_select(1, t.tensor([0])),
    "index_select empty first axis": lambda t: t.zeros(0, 2).index_select(0, t.tensor([0])),
    "index_select empty self bounds": lambda t: t.zeros(2, 0).index_select(0, t.tensor([5])),
    "index_select empty self negative": lambda t: t.zeros(2, 0, 3).index_select(2, t.tensor([-1])),
    "index_select empty 1-d bounds": lambda t: t.zeros(0).index_select(0, t.tensor([0])),
    "flip twice": lambda t: _x(t).flip([0, -2]),
    "flip dim": lambda t: _x(t).flip(2),
    "flip 0-d dim": lambda t: t.tensor(2.0).flip(1),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t))


WRONG_CALLS: dict[str, Any] = {
    "gather no index": lambda t: _x(t).gather(1),
    "gather list": lambda t: _x(t).gather(1, [0]),
    "gather str dim": lambda t: _x(t).gather("a", 1),
    "gather unknown keyword": lambda t: _x(t).gather(foo=1),
    "torch.gather str dim": lambda t: t.gather(_x(t), "a", 1),
    "index_select str dim": lambda t: _x(t).index_select("a", 1),
    "torch.index_select unknown": lambda t: t.index_select(_x(t), foo=1),
    "flip nothing": lambda t: _x(t).flip(),
    "flip float": lambda t: _x(t).flip(1.0),
    "flip bool": lambda t: _x(t).flip(True),
    "torch.flip int": lambda t: t.flip(_x(t), 0),
    "torch.flip str": lambda t: t.flip(_x(t), "a"),
}


@pytest.mark.parametrize("form", WRONG_CALLS)
def test_wrong_calls_are_refused_with_torchs_words(form: str) -> None:
    same(lambda t: WRONG_CALLS[form](t), raises="TypeError")


GRADS: dict[str, Any] = {
    "gather": lambda t, x: x.gather(1, t.tensor([[0, 0, 2, 1], [1, 1, 0, 2]])),
    "gather -1": lambda t, x: x.gather(-1, t.tensor([[0], [1]]), sparse_grad=False),
    "gather dim 0": lambda t, x: t.gather(x, 0, t.tensor([[1, 1, 0]])),
    "index_select": lambda t, x: x.index_select(1, t.tensor([2, 0, 2])),
    "index_select -2": lambda t, x: x.index_select(-2, t.tensor([1, 1])),
    "index_select int32": lambda t, x: x.index_select(0, t.tensor([0], dtype=t.int32)),
    "flip": lambda t, x: x.flip(0, -1),
    "flip none": lambda t, x: x.flip([]),
    "flip 1": lambda t, x: t.flip(x, [1]),
}


def _leaf(t: Any) -> Any:
    return t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)


@pytest.mark.parametrize("case", GRADS)
def test_nodes_saved_values_and_gradients_are_torchs(case: str) -> None:
    same_node_and_gradients(_leaf, GRADS[case])


@pytest.mark.parametrize("case", GRADS)
def test_second_order_gradients_are_torchs(case: str) -> None:
    """The backward is differentiable: its result has torch's node and version, and its own
    gradient is torch's."""

    def program(t: Any) -> Any:
        x = _leaf(t)
        return second_order(t, (GRADS[case](t, x) ** 2 * 1.5).sum(), x)

    same(program)


@pytest.mark.parametrize("op", ["gather", "index_select"])
def test_a_write_into_the_saved_index_is_seen_by_backward(op: str) -> None:
    def program(t: Any) -> Any:
        x = _leaf(t)
        index = t.tensor([[0], [1]]) if op == "gather" else t.tensor([1])
        y = getattr(x, op)(1, index)
        index.add_(0)
        return error_of(lambda: y.sum().backward()) or grad_of(x)

    same(program)


def test_sparse_grad_is_saved_as_torchs() -> None:
    def program(t: Any) -> Any:
        y = _leaf(t).gather(1, t.tensor([[2], [0]]), sparse_grad=True)
        return y, y.grad_fn, saved_values(y.grad_fn)

    same(program)


def test_a_sparse_gradient_is_refused_not_made_dense() -> None:
    """torch's ``sparse_grad=True`` gives a sparse ``.grad``; the engine has no sparse layout."""
    import ownership

    x = _leaf(ownership)
    y = x.gather(1, ownership.tensor([[2], [0]]), sparse_grad=True)
    with pytest.raises(NotImplementedError, match=r"sparse_grad=True\) is not supported"):
        y.sum().backward()
