"""A uint8 numpy array (or torch tensor, or a list of numpy uint8 numbers, which torch makes a
uint8 tensor) as an index: torch 2.13 reads it as a boolean mask, with its deprecation warning; a 0-d one as a 0-d bool (no warning); assigning one value
through one such mask is ``masked_fill_``, which refuses it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import same
from support.foreign import same_as_numpy


def _m(values: Any = (1, 0, 1)) -> Any:
    return np.array(values, dtype=np.uint8)


def _x(t: Any, requires_grad: bool = False) -> Any:
    return t.tensor([1.0, 5.0, 0.0], requires_grad=requires_grad)


def _grid(t: Any) -> Any:
    return t.arange(6.0).view(2, 3)


def _set(x: Any, key: Any, value: Any) -> Any:
    x[key] = value
    return [x, x._version]


READ: dict[str, Any] = {
    "mask": lambda t: _x(t)[_m()],
    "values_not_indices": lambda t: _x(t)[_m((2, 0, 1))],
    "0d_true": lambda t: _x(t)[np.array(1, dtype=np.uint8)],
    "0d_false": lambda t: _x(t)[np.array(0, dtype=np.uint8)],
    "0d_then_int": lambda t: _grid(t)[np.array(1, dtype=np.uint8), 1],
    "2d": lambda t: _grid(t)[_m([[1, 0, 1], [0, 1, 0]])],
    "after_an_int": lambda t: _grid(t)[0, _m()],
    "wrong_shape": lambda t: _x(t)[_m((1, 0))],
    "int8_is_indices": lambda t: _x(t)[np.array([1, 0, 1], dtype=np.int8)],
    "uint8_scalar_is_an_int": lambda t: _x(t)[np.uint8(1)],
    "uint8_list": lambda t: _x(t)[[np.uint8(1), np.uint8(0), np.uint8(2)]],
    "uint8_list_with_a_bool": lambda t: _x(t)[[np.uint8(1), True, np.uint8(0)]],
    "uint8_list_with_an_int_is_indices": lambda t: _x(t)[[np.uint8(1), 0]],
    "uint8_list_of_the_wrong_length": lambda t: _x(t)[[np.uint8(1)]],
    "uint8_list_after_a_slice": lambda t: _grid(t)[:, [np.uint8(1), np.uint8(0), np.uint8(1)]],
    "uint8_list_beside_a_list": lambda t: _grid(t)[[np.uint8(1), np.uint8(0)], [0, 2]],
    "assign_uint8_list": lambda t: _set(_x(t), [np.uint8(0), np.uint8(1), np.uint8(1)], 3.0),
    "assign_uint8_list_tensor": lambda t: _set(
        _x(t), [np.uint8(0), np.uint8(1), np.uint8(1)], t.tensor([3.0, 4.0])
    ),
    "assign_tensor": lambda t: _set(_x(t), _m(), t.tensor([3.0, 4.0])),
    "assign_0d_mask": lambda t: _set(_x(t), np.array(1, dtype=np.uint8), 3.0),
    # one value through one mask: masked_fill_, which refuses uint8
    "assign_number": lambda t: _set(_x(t), _m(), 3.0),
    "assign_0d_tensor": lambda t: _set(_x(t), _m(), t.tensor(3.0)),
    "assign_one_element": lambda t: _set(_x(t), _m(), t.tensor([7.0])),
    "assign_bool": lambda t: _set(_x(t), _m(), True),
    "assign_after_an_int": lambda t: _set(_grid(t), (0, _m()), 3.0),
    "assign_leaf": lambda t: _set(_x(t, requires_grad=True), _m(), 3.0),
}


@pytest.mark.parametrize("program", READ.values(), ids=READ.keys())
def test_a_uint8_array_index_is_a_mask(program: Any) -> None:
    same(program)


def test_the_mask_backward() -> None:
    def program(t: Any) -> Any:
        x = _x(t, requires_grad=True)
        y = x[_m()]
        (y * t.tensor([2.0, 3.0])).sum().backward()
        return [y, y.grad_fn, x.grad]

    same(program)


def test_a_uint8_torch_tensor_is_read_as_the_numpy_array() -> None:
    same_as_numpy(lambda t, f: [_x(t)[f(_m())], _grid(t)[1, f(_m((0, 1, 1)))]])
