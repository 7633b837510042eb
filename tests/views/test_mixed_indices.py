"""A key mixing basic indices (ints, slices, None, ...) with advanced ones (index tensors,
masks, lists), as torch 2.13 applies it: the basic indices first, as views (``SelectBackward0``,
``SliceBackward0``, ``UnsqueezeBackward0``; a slice over a whole dimension is skipped), then the
advanced ones on that view (``IndexBackward0``, or ``index_put_`` in place on the view, so the
base gets ``CopySlices``). The chain of nodes, the gradient's version (a fresh select/slice
backward, 0; ``IndexBackward0``'s own accumulation, 1) and the result's order of dimensions all
follow from it."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def _cube(t: Any, requires_grad: bool = True) -> Any:
    return t.arange(24.0).view(2, 3, 4).requires_grad_(requires_grad)


def _idx(t: Any) -> Any:
    return t.tensor([0, 2])


def _chain(node: Any) -> list[str]:
    names = []
    while node is not None:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return names


KEYS: dict[str, Any] = {
    "int_then_index": lambda t: (1, _idx(t)),
    "index_then_int": lambda t: (_idx(t)[:1], 1),
    "index_alone": lambda t: _idx(t)[:1],
    "whole_slice_then_index": lambda t: (slice(None), _idx(t)),
    "slice_then_index": lambda t: (slice(None), slice(1, None), _idx(t)),
    "int_slice_index": lambda t: (1, slice(None), _idx(t)),
    "int_then_two_indices": lambda t: (1, _idx(t), _idx(t)),
    "index_int_index": lambda t: (_idx(t)[:1], 1, _idx(t)),
    "ellipsis_int_index": lambda t: (Ellipsis, 1, _idx(t)),
    "int_ellipsis_index": lambda t: (1, Ellipsis, _idx(t)),
    "none_int_index": lambda t: (None, 1, _idx(t)),
    "int_then_mask": lambda t: (1, t.tensor([True, False, True])),
    "int_then_list": lambda t: (1, [0, 2]),
    # a bool is an unsqueeze and an index of the new dim: [0] for True, [] for False
    "python_bool": lambda t: (True, 1, _idx(t)),
    "int_then_bool": lambda t: (1, True, _idx(t)),
    "python_false": lambda t: (False, slice(None), _idx(t)),
    "bool_alone": lambda t: True,
    "bool_then_int": lambda t: (True, 1),
    "bool_ellipsis_index": lambda t: (True, Ellipsis, _idx(t)),
    "none_then_bool": lambda t: (None, True, slice(1, None)),
    "0d_bool_tensor": lambda t: (t.tensor(True), 1, _idx(t)),
}


@pytest.mark.parametrize("key", list(KEYS.values()), ids=list(KEYS.keys()))
def test_basic_indices_are_views_first(key: Any) -> None:
    def program(t: Any) -> Any:
        x = _cube(t)
        y = x[key(t)]
        (y * 2).sum().backward()
        return [y, _chain(y.grad_fn), x.grad, x.grad._version, _cube(t, False)[key(t)]]

    same(program)


ERRORS: dict[str, Any] = {
    "int_out_of_range": lambda t: _cube(t)[5, _idx(t)],
    "mask_of_the_view": lambda t: _cube(t)[1, t.tensor([True, False])],
    "index_out_of_range": lambda t: _cube(t)[1, t.tensor([7])],
    "float_index": lambda t: _cube(t)[1, t.tensor([1.0])],
    "bool_then_index_out_of_range": lambda t: _cube(t)[True, t.tensor([0, 2])],
    "index_after_a_slice_out_of_range": lambda t: _cube(t)[:, :, t.tensor([7])],
    "index_after_ellipsis_out_of_range": lambda t: _cube(t)[..., t.tensor([-9])],
    "index_after_a_mask_out_of_range": lambda t: _cube(t)[
        t.tensor([[True] * 3] * 2), t.tensor([9])
    ],
    "false_beside_an_index": lambda t: _cube(t)[False, 1, t.tensor([0, 2])],
    "indices_that_do_not_broadcast": lambda t: _cube(t)[t.tensor([[0, 1]]), t.tensor([0, 1, 1])],
    "none_index_bool_int": lambda t: _cube(t)[None, t.tensor([0, 2]), True, 0],
}


@pytest.mark.parametrize("program", ERRORS.values(), ids=ERRORS.keys())
def test_errors_name_the_view(program: Any) -> None:
    same(program)


def _assign(key: Any, value: Any = -1.0) -> Any:
    def program(t: Any) -> Any:
        x = _cube(t) * 1
        x[key(t)] = value(t) if callable(value) else value
        return [x, _chain(x.grad_fn), x._version]

    return program


def _assign_grad(t: Any) -> Any:
    x = _cube(t) * 1
    v = t.ones(2, 4, requires_grad=True)
    x[1, _idx(t)] = v
    x.sum().backward()
    return [x, _chain(x.grad_fn), v.grad, v.grad._version]


def _assign_leaf(t: Any) -> Any:
    x = _cube(t)
    x[1, _idx(t)] = 5.0
    return x


def _assign_no_grad(t: Any) -> Any:
    x = _cube(t, False)
    row = x[1]
    x[1, _idx(t)] = 5.0
    return [x, x._version, row, row._version]


ASSIGNED: dict[str, Any] = {
    "int_then_index": _assign(lambda t: (1, _idx(t))),
    "slice_then_index": _assign(lambda t: (slice(None), slice(1, None), _idx(t))),
    "index_alone": _assign(lambda t: _idx(t)[:1]),
    "a_tensor": _assign(lambda t: (1, _idx(t)), lambda t: t.ones(2, 4)),
    "gradient_of_the_value": _assign_grad,
    "view_of_a_leaf": _assign_leaf,
    "no_grad_shares_the_version": _assign_no_grad,
    "beside_a_bool": _assign(lambda t: (True, 1, _idx(t))),
}


@pytest.mark.parametrize("program", ASSIGNED.values(), ids=ASSIGNED.keys())
def test_assignment_writes_the_view(program: Any) -> None:
    same(program)
