"""A tensor of torch itself given to an ownership op (``import torch`` mixed with ``import
ownership as torch``): refused where torch refuses a numpy array, with torch's wording and the
type named ``torch.Tensor``; read through numpy where torch reads a numpy array (``x + a``).

Each program runs under torch with a numpy array and under ownership with a torch tensor of the
same values and dtype (:func:`support.foreign.same_as_numpy`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy
import pytest
import torch

import ownership

from support.differential import same
from support.foreign import same_as_numpy


def _x(t: Any) -> Any:
    return t.tensor([1.0, 2.0, 3.0])


def _f(foreign: Any) -> Any:
    return foreign([1.0, 0.5, 2.0])


def _mask(foreign: Any) -> Any:
    return foreign([True, False, True])


REFUSED: dict[str, Any] = {
    "mul": lambda t, f: _x(t).mul(_f(f)),
    "add": lambda t, f: _x(t).add(_f(f)),
    "sub": lambda t, f: _x(t).sub(_f(f)),
    "div": lambda t, f: _x(t).div(_f(f)),
    "add_": lambda t, f: _x(t).add_(_f(f)),
    "mul_": lambda t, f: _x(t).mul_(_f(f)),
    "fn_mul": lambda t, f: t.mul(_x(t), _f(f)),
    "fn_mul_first": lambda t, f: t.mul(_f(f), _x(t)),
    "fn_add": lambda t, f: t.add(_x(t), _f(f)),
    "masked_fill": lambda t, f: _x(t).masked_fill(_mask(f), 0),
    "masked_fill_": lambda t, f: _x(t).masked_fill_(_mask(f), 0),
    "where_condition": lambda t, f: t.where(_mask(f), _x(t), _x(t)),
    "where_input": lambda t, f: t.where(_x(t) > 1, _f(f), _x(t)),
    "isclose": lambda t, f: t.isclose(_x(t), _f(f)),
    "isclose_method": lambda t, f: _x(t).isclose(_f(f)),
    "allclose": lambda t, f: t.allclose(_x(t), _f(f)),
    "cat": lambda t, f: t.cat([_x(t), _f(f)]),
    "stack": lambda t, f: t.stack([_x(t), _f(f)]),
    "clamp": lambda t, f: _x(t).clamp(_f(f)),
    "clamp_min_keyword": lambda t, f: _x(t).clamp(min=_f(f)),
    "pow": lambda t, f: _x(t).pow(_f(f)),
    "matmul": lambda t, f: _x(t).matmul(_f(f)),
    "fn_matmul": lambda t, f: t.matmul(_x(t), _f(f)),
    "fn_dot": lambda t, f: t.dot(_x(t), _f(f)),
    "dot": lambda t, f: _x(t).dot(_f(f)),
    "maximum": lambda t, f: t.maximum(_x(t), _f(f)),
    "max": lambda t, f: _x(t).max(_f(f)),
    "eq": lambda t, f: _x(t).eq(_f(f)),
    "copy_": lambda t, f: _x(t).copy_(_f(f)),
    "gather": lambda t, f: _x(t).gather(0, f([0, 1])),
    "index_select": lambda t, f: _x(t).index_select(0, f([0, 1])),
    "fill_": lambda t, f: _x(t).fill_(f(2.0)),
    "expand_as": lambda t, f: _x(t).expand_as(_f(f)),
    "view_as": lambda t, f: _x(t).view_as(_f(f)),
    "fn_sum": lambda t, f: t.sum(_f(f)),
    "fn_exp": lambda t, f: t.exp(_f(f)),
    "ones_like": lambda t, f: t.ones_like(_f(f)),
    "setitem": lambda t, f: _x(t).__setitem__(_mask(f), _f(f)),
    "is_inference": lambda t, f: t.is_inference(_f(f)),
    "pow_": lambda t, f: _x(t).pow_(_f(f)),
    "reflected_plus": lambda t, f: _f(f) + _x(t),
    "reflected_minus": lambda t, f: _f(f) - _x(t),
    "reflected_power": lambda t, f: _f(f) ** _x(t),
    "reflected_matmul": lambda t, f: _f(f) @ _x(t),
    "less": lambda t, f: _x(t) < _f(f),
    "greater_equal": lambda t, f: _x(t) >= _f(f),
    "plus_grad": lambda t, f: _x(t).requires_grad_() + _f(f),
    "minus_grad": lambda t, f: _x(t).requires_grad_() - _f(f),
    "plus_shapes": lambda t, f: _x(t) + f([1.0, 2.0]),
    "outer": lambda t, f: _x(t).outer(_f(f)),
    "fn_outer": lambda t, f: t.outer(_x(t), _f(f)),
    "fn_index_select": lambda t, f: t.index_select(_x(t), 0, f([0, 1])),
}

READ: dict[str, Any] = {
    "plus": lambda t, f: _x(t) + _f(f),
    "times": lambda t, f: _x(t) * _f(f),
    "divided": lambda t, f: _x(t) / _f(f),
    "power": lambda t, f: _x(t) ** _f(f),
    "equal": lambda t, f: _x(t) == _f(f),
    "minus": lambda t, f: _x(t) - _f(f),
    "reflected_divided": lambda t, f: _f(f) / _x(t),
    "matmul_operator": lambda t, f: _x(t) @ _f(f),
    "and": lambda t, f: t.tensor([1, 2, 3]) & f([1, 1, 1]),
    "plus_promotes": lambda t, f: t.tensor([1, 2, 3]) + _f(f),
    "tensor": lambda t, f: t.tensor(_f(f)),
    "new_tensor": lambda t, f: _x(t).new_tensor(_f(f)),
    "index": lambda t, f: _x(t)[f([2, 0])],
    "index_0d": lambda t, f: _x(t)[f(1)],
    "index_floats": lambda t, f: _x(t)[f([1.5, 0.0])],
    "mask": lambda t, f: _x(t)[_mask(f)],
}


@pytest.mark.parametrize("program", REFUSED.values(), ids=REFUSED.keys())
def test_a_torch_tensor_is_refused_where_torch_refuses_a_numpy_array(program: Any) -> None:
    assert same_as_numpy(program) is None


@pytest.mark.parametrize("program", READ.values(), ids=READ.keys())
def test_a_torch_tensor_is_read_where_torch_reads_a_numpy_array(program: Any) -> None:
    result = same_as_numpy(program)
    assert type(result) is ownership.Tensor


def test_the_refusal_names_torch_tensor_not_tensor() -> None:
    x = ownership.tensor([1.0, 2.0])
    with pytest.raises(TypeError) as caught:
        ownership.cat([x, torch.tensor([3.0])])
    assert str(caught.value) == ("expected Tensor as element 1 in argument 0, but got torch.Tensor")
    with pytest.raises(TypeError) as caught:
        x.mul(torch.tensor([3.0, 4.0]))
    assert str(caught.value) == (
        "mul(): argument 'other' (position 1) must be Tensor, not torch.Tensor"
    )


def _plus_equals(t: Any, f: Any) -> Any:
    x = _x(t)
    before = x
    x += _f(f)
    return [x is before, x, before, before._version]


def test_plus_equals_makes_a_new_tensor_as_with_a_numpy_array() -> None:
    result = same_as_numpy(_plus_equals)
    assert result[0] is False


def test_an_operand_that_requires_grad_is_refused_as_torch_refuses_its_numpy() -> None:
    """``x * t`` reads both through numpy, which torch refuses for a tensor that requires grad."""
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad"):
        ownership.tensor([1.0, 2.0], requires_grad=True) * torch.tensor([3.0, 4.0])
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad"):
        ownership.tensor([1.0, 2.0]) * torch.tensor([3.0, 4.0], requires_grad=True)


def test_a_torch_tensor_index_reads_as_a_numpy_one_in_setitem_and_backward() -> None:
    def program(t: Any, f: Any) -> Any:
        x = t.arange(6.0).view(2, 3).requires_grad_()
        y = x[f(1)] * 2
        y.sum().backward()
        z = x.detach().clone()
        z[_mask(f)[:2]] = -1.0
        return [y, y.grad_fn, x.grad, z, z._version]

    same_as_numpy(program)


def test_from_numpy_refuses_a_torch_tensor_and_a_list_as_torch_does() -> None:
    same(lambda t: t.from_numpy([1.0]))
    with pytest.raises(TypeError) as caught:
        ownership.from_numpy(torch.tensor([1.0]))
    assert str(caught.value) == "expected np.ndarray (got torch.Tensor)"
    same(lambda t: t.is_inference([1.0]))


def test_numpys_warning_points_at_the_users_line_as_with_a_numpy_array() -> None:
    """numpy 2 warns about torch's ``__array_wrap__`` signature when it computes ``x * a``; with
    a torch tensor in the array's place the warning is the same, at the same (the user's) line."""
    for operand in (numpy.array([3.0, 4.0], dtype="float32"), torch.tensor([3.0, 4.0])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ownership.tensor([1.0, 2.0]) * operand
        assert [(w.category, w.filename) for w in caught] == [(DeprecationWarning, __file__)]
