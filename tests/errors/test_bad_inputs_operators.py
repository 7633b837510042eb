"""Operators, indexing, backward and floating-point edge values, under torch and ownership.

Python operators given something torch does not take (``None``, a list, a string) return
``NotImplemented``, so Python itself answers as it does for torch: ``t == None`` is ``False``,
``t + None`` a ``TypeError`` naming both types. Indexing and assignment refuse what torch
refuses with torch's words, and ``backward(gradient=...)`` reads a sequence as torch does.
inf and NaN are results, never numpy ``RuntimeWarning``s: every program here also fails if the
engine lets a numpy warning out (the harness compares warnings).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from support.differential import same

OPERATORS: dict[str, Any] = {
    # a Python int is read as an int64, else a uint64, else torch's OverflowError
    "add_int_too_big": lambda t: t.ones(2) + 2**64,
    "radd_int_too_big": lambda t: 2**70 + t.ones(2),
    "sub_int_too_negative": lambda t: t.ones(2) - (-(2**63) - 1),
    "mul_uint64_int": lambda t: t.ones(2) * (2**64 - 1),
    "sub_int64_min": lambda t: t.ones(2, dtype=t.float64) - (-(2**63)),
    "iadd_int_too_big": lambda t: t.ones(2).add_(2**70),
    "pow_int_too_big": lambda t: t.ones(2) ** 2**70,
    "gt_int_too_big": lambda t: t.ones(2) > 2**70,
    "div_int_too_big": lambda t: t.ones(2) / 2**64,
    "eq_none": lambda t: t.ones(2) == None,  # noqa: E711 - the comparison is the point
    "ne_none": lambda t: t.ones(2) != None,  # noqa: E711
    "eq_str": lambda t: t.ones(2) == "a",
    "lt_none": lambda t: t.ones(2) < None,
    "add_list": lambda t: t.ones(2) + [1, 2],  # noqa: RUF005 - the concatenation is the point
    "radd_list": lambda t: [1, 2] + t.ones(2),  # noqa: RUF005
    "add_none": lambda t: t.ones(2) + None,
    # numpy defers to a tensor's reflected @, which refuses an array: Python's TypeError
    "rmatmul_ndarray": lambda t: np.ones((2, 2)) @ t.ones(2),
    "rmatmul_list": lambda t: [[1.0, 2.0]] @ t.ones(2),
    # fuzz 95886: dot checks its sizes before its kernel refuses bool
    "matmul_bool_vectors_of_two_sizes": lambda t: (
        t.zeros(4, dtype=t.bool) @ t.ones(1, dtype=t.bool)
    ),
    "dot_bool_vectors_of_two_sizes": lambda t: t.dot(t.zeros(4, dtype=t.bool), t.ones(1).bool()),
    "dot_bool_vectors": lambda t: t.zeros(4, dtype=t.bool).dot(t.ones(4, dtype=t.bool)),
    "dot_bool_and_float_of_two_sizes": lambda t: t.dot(t.zeros(4, dtype=t.bool), t.ones(1)),
    "radd_none": lambda t: None + t.ones(2),
    "add_str": lambda t: t.ones(2) + "a",
    "mul_none": lambda t: t.ones(2) * None,
    "mul_list": lambda t: t.ones(2) * [1, 2],
    "mul_tuple": lambda t: t.ones(2) * (1, 2),
    "sub_tuple": lambda t: t.ones(2) - (1, 2),
    "div_none": lambda t: t.ones(2) / None,
    "rdiv_list": lambda t: [1.0] / t.ones(2),
    "pow_none": lambda t: t.ones(2) ** None,
    "rpow_list": lambda t: [1.0] ** t.ones(2),
    "and_none": lambda t: t.ones(2, dtype=t.bool) & None,
    "iadd_none": lambda t: _iadd(t.ones(2), None),
    "iadd_list": lambda t: _iadd(t.ones(2), [1.0, 2.0]),
    "add_numpy_scalar": lambda t: t.ones(2) + np.float64(2),
    "add_broadcast": lambda t: t.ones(2) + t.ones(3),
}

INDEXING: dict[str, Any] = {
    "str_index": lambda t: t.ones(3)["a"],
    "bytes_index": lambda t: t.ones(3)[b"a"],
    "str_in_tuple": lambda t: t.ones(3)[("a",)],
    "none_then_str": lambda t: t.ones(3)[None, "a"],
    "dict_index": lambda t: t.ones(3)[{}],
    "set_index": lambda t: t.ones(3)[{1}],
    "object_index": lambda t: t.ones(3)[object()],
    "float_index": lambda t: t.ones(3)[1.5],
    "float_list_index": lambda t: t.ones(3)[[1.5]],
    "empty_list_index": lambda t: t.ones(3)[[]],
    "float_list_of_empty": lambda t: t.ones(0)[[0.5]],
    "list_index_of_empty": lambda t: t.ones(0)[[1, 2]],
    "zero_step": lambda t: t.ones(3)[::0],
    "float_slice": lambda t: t.ones(3)[0.5:],
    "str_slice": lambda t: t.ones(3)[0:"a"],
    "negative_step": lambda t: t.ones(3)[::-1],
    "too_many": lambda t: t.ones(3)[0, 0],
    "too_many_with_float": lambda t: t.ones(3)[(0, 0.5)],
    "out_of_bounds": lambda t: t.ones(3)[10],
    "out_of_bounds_tensor": lambda t: t.ones(3)[t.tensor([10])],
    "out_of_bounds_list": lambda t: t.ones(3)[[0, 10]],
    "zero_dim_int": lambda t: t.tensor(1.0)[0],
    "zero_dim_other_int": lambda t: t.tensor(1.0)[1],
    "zero_dim_tensor_index": lambda t: t.tensor(1.0)[t.tensor(0)],
    "zero_dim_float": lambda t: t.tensor(1.0)[0.5],
    "zero_dim_list": lambda t: t.tensor(1.0)[[1, 2]],
    "zero_dim_two": lambda t: t.tensor(1.0)[(0, 1)],
    "zero_dim_str": lambda t: t.tensor(1.0)["a"],
    "zero_dim_slice": lambda t: t.tensor(1.0)[:],
    "zero_dim_none": lambda t: t.tensor(1.0)[None],
    "float_tensor_index": lambda t: t.ones(3)[t.tensor(1.0)],
    "assign_str": lambda t: t.ones(3).__setitem__(0, "a"),
    "assign_none": lambda t: t.ones(3).__setitem__(0, None),
    "assign_list": lambda t: t.ones(3).__setitem__(0, [1, 2, 3]),
    "assign_list_to_slice": lambda t: t.ones(2).__setitem__(slice(None), [1.0, 2.0]),
    "assign_numpy_array": lambda t: t.ones(2).__setitem__(0, np.ones(1)),
    "assign_numpy_scalar": lambda t: _set(t.ones(2), 0, np.float64(2)),
    "assign_str_to_long": lambda t: t.ones(2, dtype=t.int64).__setitem__(0, "a"),
    "assign_none_to_bool": lambda t: t.ones(2, dtype=t.bool).__setitem__(0, None),
    "assign_inf_to_long": lambda t: t.ones(2, dtype=t.int64).__setitem__(0, float("inf")),
    "assign_big_to_int": lambda t: t.ones(2, dtype=t.int32).__setitem__(0, 1e10),
    "assign_nan_to_empty_long": lambda t: t.ones(0, dtype=t.int64).__setitem__(0, float("nan")),
    "assign_str_key": lambda t: t.ones(3).__setitem__("a", 1.0),
    "assign_out_of_bounds": lambda t: t.ones(3).__setitem__(5, 1.0),
    "assign_list_out_of_bounds": lambda t: t.ones(3).__setitem__([5], 1.0),
}

BACKWARD: dict[str, Any] = {
    "gradient_list_of_floats": lambda t: _backward(t, [1.0, 1.0], sum_first=False),
    "gradient_float": lambda t: _backward(t, 1.0, sum_first=False),
    "gradient_float_scalar_output": lambda t: _backward(t, 1.0),
    "gradient_str": lambda t: _backward(t, "a"),
    "gradient_list_of_tensors": lambda t: _backward(t, [t.tensor(1.0), t.tensor(1.0)]),
    "gradient_list_of_none": lambda t: _backward(t, [None]),
    "gradient_tuple": lambda t: _backward(t, (t.tensor(2.0),)),
    "gradient_empty_list": lambda t: _backward(t, []),
    "gradient_wrong_shape": lambda t: _backward(t, t.ones(3), sum_first=False),
    "where_shapes": lambda t: t.where(t.ones(2, dtype=t.bool), t.ones(3), t.ones(2)),
    "where_shapes_second_pair": lambda t: t.where(t.ones(2, dtype=t.bool), t.ones(2, 1), t.ones(3)),
    "where_scalar_and_shapes": lambda t: t.where(t.ones(2, dtype=t.bool), 1.0, t.ones(3)),
    "where_none": lambda t: t.where(t.ones(2, dtype=t.bool), None, t.ones(2)),
    "where_list": lambda t: t.where(t.ones(2, dtype=t.bool), t.ones(2), [1.0, 2.0]),
    "softmax_implicit_dim": lambda t: t.nn.functional.softmax(t.ones(2, 3)),
    "log_softmax_implicit_dim": lambda t: t.nn.functional.log_softmax(t.ones(3)),
    "functional_softmax_float_dim": lambda t: t.nn.functional.softmax(t.ones(2), 0.5),
    "cross_entropy_of_inf": lambda t: _cross_entropy_grad(t),
    "add_inplace_none": lambda t: t.ones(2).add_(None),
    "add_inplace_list": lambda t: t.ones(2).add_([1.0, 2.0]),
    "sub_inplace_three": lambda t: t.ones(2).sub_(1, 2, 3),
    "mul_inplace_str": lambda t: t.ones(2).mul_("a"),
    "div_inplace_none": lambda t: t.ones(2).div_(None),
    "pow_inplace_none": lambda t: t.ones(2).pow_(None),
    "fill_str": lambda t: t.ones(2).fill_("a"),
    "fill_none": lambda t: t.ones(2).fill_(None),
    "fill_list": lambda t: t.ones(2).fill_([1.0]),
    "copy_none": lambda t: t.ones(2).copy_(None),
    "copy_list": lambda t: t.ones(2).copy_([1.0, 2.0]),
    "clamp_inplace_str": lambda t: t.ones(2).clamp_("a"),
    "requires_grad_str": lambda t: t.ones(2).requires_grad_("a"),
    "requires_grad_none": lambda t: t.ones(2).requires_grad_(None),
    "requires_grad_int": lambda t: t.ones(2).requires_grad_(1),
    "view_as_none": lambda t: t.ones(2).view_as(None),
    "reshape_as_none": lambda t: t.ones(2).reshape_as(None),
    "expand_as_list": lambda t: t.ones(2).expand_as([1, 2]),
    "type_as_none": lambda t: t.ones(2).type_as(None),
    "linear_of_none": lambda t: t.nn.Linear(2, 2)(None),
    "linear_of_list": lambda t: t.nn.Linear(2, 2)([1.0, 2.0]),
    "relu_module_of_list": lambda t: t.nn.ReLU()([1.0]),
    "sigmoid_module_of_list": lambda t: t.nn.Sigmoid()([1.0]),
    "tanh_module_of_list": lambda t: t.nn.Tanh()([1.0]),
    "promote_types_none": lambda t: t.promote_types(t.float32, None),
    "allclose_shapes": lambda t: t.allclose(t.ones(2), t.ones(3)),
    "allclose_list": lambda t: t.allclose(t.ones(2), [1.0, 1.0]),
    "equal_list": lambda t: t.equal(t.ones(2), [1.0]),
    "equal_shapes": lambda t: t.equal(t.ones(2), t.ones(3)),
    "broadcast_shapes_mismatch": lambda t: t.broadcast_shapes((2,), (3,)),
    "broadcast_shapes_negative": lambda t: t.broadcast_shapes((-1,), (3,)),
    "broadcast_shapes_ints": lambda t: t.broadcast_shapes(2, (3, 1), None),
    "broadcast_shapes_none": lambda t: t.broadcast_shapes(),
    "randn_like_list": lambda t: t.randn_like([1.0]),
    "empty_like_list": lambda t: t.empty_like([1.0]),
    "fn_eq_list": lambda t: t.eq(t.ones(2), [1.0, 1.0]),
    "grad_of_none": lambda t: t.autograd.grad(None, t.ones(2, requires_grad=True)),
    "grad_of_floats": lambda t: t.autograd.grad([1.0], [t.ones(2, requires_grad=True)]),
    "grad_of_str": lambda t: t.autograd.grad("a", t.ones(2, requires_grad=True)),
    "grad_wrt_none": lambda t: _grad_wrt(t, None),
    "grad_wrt_floats": lambda t: _grad_wrt(t, [1.0]),
    "grad_wrt_str": lambda t: _grad_wrt(t, "a"),
    "grad_outputs_float": lambda t: _grad_wrt(t, "x", grad_outputs=1.0),
    "grad_outputs_list_of_float": lambda t: _grad_wrt(t, "x", grad_outputs=[1.0]),
    "grad_outputs_tuple": lambda t: _grad_wrt(t, "x", grad_outputs=(t.tensor(2.0),)),
    "to_bad_device_string": lambda t: t.ones(2).to("a"),
    "to_device_index": lambda t: t.ones(2).to(5),
}

FLOATING_POINT: dict[str, Any] = {
    "inf_times_zero": lambda t: t.tensor([float("inf")]) * 0,
    "overflow": lambda t: t.tensor([3e38]) * 10,
    "exp_overflow": lambda t: t.tensor([1000.0]).exp(),
    "log_of_negative_and_zero": lambda t: t.tensor([-1.0, 0.0]).log(),
    "sqrt_of_negative": lambda t: t.tensor([-1.0]).sqrt(),
    "divide_by_zero": lambda t: t.tensor([0.0, 1.0]) / 0,
    "int_divide_by_zero": lambda t: t.tensor([0, 1]) / 0,
    "sigmoid_of_large_negative": lambda t: t.tensor([-1000.0]).sigmoid(),
    "pow_overflow": lambda t: t.tensor([10.0]) ** 100,
    "pow_negative_base_fraction": lambda t: t.tensor([-1.0]) ** 0.5,
    "rpow_overflow": lambda t: 10.0 ** t.tensor([100.0]),
    "softmax_of_inf": lambda t: t.tensor([float("inf"), 1.0]).softmax(0),
    "log_softmax_of_minus_inf": lambda t: t.tensor([float("-inf"), float("-inf")]).log_softmax(0),
    "inf_minus_inf": lambda t: t.tensor([float("inf")]) - float("inf"),
    "mean_of_inf_and_minus_inf": lambda t: t.tensor([float("inf"), float("-inf")]).mean(),
    "mean_of_empty": lambda t: t.tensor([]).mean(),
    "mean_of_empty_dim": lambda t: t.zeros(0, 2).mean(0),
    "fn_mean_of_empty": lambda t: t.mean(t.tensor([])),
    "sum_overflow": lambda t: t.tensor([3e38, 3e38]).sum(),
    "matmul_inf_times_zero": lambda t: t.tensor([[float("inf"), 0.0]]) @ t.tensor([0.0, 1.0]),
    "gradient_of_exp_overflow": lambda t: _grad(t, float(1000), lambda x: x.exp()),
    "gradient_of_inf_times_zero": lambda t: _grad(t, float("inf"), lambda x: x * 0),
    "cos_of_inf": lambda t: t.tensor([float("inf")]).cos(),
    "nan_to_long": lambda t: t.tensor([float("nan")]).long(),
    "inf_to_int": lambda t: t.tensor([float("inf")]).int(),
    "max_with_nan": lambda t: t.tensor([1.0, float("nan")]).max(),
    "tensor_overflows_float32": lambda t: t.tensor([1e40]),
    "full_overflows_float32": lambda t: t.full((2,), 1e40),
    "full_double_holds_it": lambda t: t.full((2,), 1e40, dtype=t.float64),
    "full_inf_float32": lambda t: t.full((2,), float("inf")),
    "full_inf_long": lambda t: t.full((2,), float("inf"), dtype=t.int64),
    "full_too_big_long": lambda t: t.full((2,), 1e19, dtype=t.int64),
    "fill_overflows_float32": lambda t: t.ones(2).fill_(1e40),
    "assign_overflows_float32": lambda t: t.ones(2).__setitem__(0, 1e40),
    "assign_too_big_int": lambda t: t.ones(2, dtype=t.int32).__setitem__(0, 2**40),
    "add_overflows_to_inf": lambda t: t.ones(2).add_(1e40),
    "double_to_float_overflow": lambda t: t.tensor([1e308], dtype=t.float64).float(),
    "new_tensor_overflow": lambda t: t.ones(2).new_tensor([1e40]),
    "inf_gradients_accumulate_to_nan": lambda t: _inf_grads(t),
    "sgd_with_inf_gradient": lambda t: _sgd_inf(t),
}


def _cross_entropy_grad(t: Any) -> Any:
    x = t.tensor([[float("inf"), 1.0]], requires_grad=True)
    loss = t.nn.functional.cross_entropy(x, t.tensor([0]))
    loss.backward()
    return loss, x.grad


def _inf_grads(t: Any) -> Any:
    x = t.tensor([1.0], requires_grad=True)
    (x * float("inf")).sum().backward()
    (x * float("-inf")).sum().backward()
    return x.grad


def _sgd_inf(t: Any) -> Any:
    w = t.nn.Parameter(t.tensor([1.0, 2.0]))
    opt = t.optim.SGD([w], lr=0.1, momentum=0.9)
    (w * float("inf")).sum().backward()
    opt.step()
    return w.detach()


def _grad_wrt(t: Any, inputs: Any, **kwargs: Any) -> Any:
    x = t.ones(2, requires_grad=True)
    return t.autograd.grad((x * 2).sum(), x if inputs == "x" else inputs, **kwargs)


def _iadd(x: Any, other: Any) -> Any:
    x += other
    return x


def _set(x: Any, key: Any, value: Any) -> Any:
    x[key] = value
    return x


def _backward(t: Any, gradient: Any, sum_first: bool = True) -> Any:
    x = t.ones(2, requires_grad=True)
    y = (x * 2).sum() if sum_first else x * 2
    y.backward(gradient=gradient)
    return x.grad


def _grad(t: Any, value: float, f: Any) -> Any:
    x = t.tensor([value], requires_grad=True)
    f(x).sum().backward()
    return x.grad


def _cases(table: dict[str, Any]) -> Any:
    return pytest.mark.parametrize("program", table.values(), ids=table.keys())


@_cases(OPERATORS)
def test_operators_take_what_torch_takes(program: Any) -> None:
    same(program)


@_cases(INDEXING)
def test_indexing_refuses_as_torch(program: Any) -> None:
    same(program)


@_cases(BACKWARD)
def test_backward_reads_its_gradient_as_torch(program: Any) -> None:
    same(program)


@_cases(FLOATING_POINT)
def test_inf_and_nan_are_results_not_numpy_warnings(program: Any) -> None:
    same(program)


def test_an_operator_takes_a_numpy_array() -> None:
    """As torch: ``t + ndarray`` computes. Warnings are not compared: torch 2.13 itself makes
    numpy 2 give a DeprecationWarning about ``__array_wrap__`` here, which is no fact of the
    program."""
    same(lambda t: t.ones(2) + np.array([1.0, 2.0]), warnings=False)


def test_no_numpy_warning_even_when_numpy_is_told_to_raise() -> None:
    """The engine sets numpy's error state around every op: a caller's ``np.seterr(all="raise")``
    does not turn inf or NaN into a ``FloatingPointError``, and is left as it was."""
    import ownership

    before = np.geterr()
    np.seterr(all="raise")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            x = ownership.tensor([float("inf"), 0.0, -1.0])
            results = [x * 0, x.log(), x / 0, x.exp().sum(), ownership.tensor([]).mean()]
        assert all(r is not None for r in results)
        assert np.geterr()["invalid"] == "raise"
    finally:
        np.seterr(**before)
