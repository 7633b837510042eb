"""Bad inputs to the factories and joins, run under torch and ownership (issue 8, section 3).

Each program gives a factory (``ones``, ``arange``, ``eye``, ``randn``, ``tensor``...) or a join
(``cat``, ``stack``) an argument torch refuses, or one torch accepts that numpy would not; the
engine must answer with torch's exception class and torch's exact words, or torch's result.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import same

CREATION: dict[str, Any] = {
    # sizes: negative, float, str, None
    "ones_float": lambda t: t.ones(2.5),
    "ones_float_in_tuple": lambda t: t.ones((2, 2.5)),
    "ones_float_first": lambda t: t.ones((2.5,)),
    "ones_float_vararg": lambda t: t.ones(2, 2.5),
    "ones_float_then_int": lambda t: t.ones(2.5, 2),
    "ones_none_in_list": lambda t: t.ones([2, None]),
    "ones_negative": lambda t: t.ones(2, -2),
    "ones_str": lambda t: t.ones("a"),
    "ones_none": lambda t: t.ones(None),
    "zeros_negative": lambda t: t.zeros(-1),
    "zeros_bool_size": lambda t: t.zeros(2, True),
    "empty_negative": lambda t: t.empty(-1),
    "full_negative": lambda t: t.full((-1,), 1.0),
    "full_none": lambda t: t.full((2,), None),
    "full_str": lambda t: t.full((2,), "a"),
    "full_float_size": lambda t: t.full((2.5,), 1.0),
    "zeros_like_list": lambda t: t.zeros_like([1, 2]),
    "ones_like_none": lambda t: t.ones_like(None),
    "linear_negative_in": lambda t: t.nn.Linear(-1, 2),
    "linear_negative_out": lambda t: t.nn.Linear(2, -3),
    "linear_float_features": lambda t: t.nn.Linear(2.5, 2),
    "eye_negative": lambda t: t.eye(-1),
    "eye_negative_m": lambda t: t.eye(2, -1),
    "eye_float": lambda t: t.eye(2.5),
    "randn_negative": lambda t: t.randn(-1),
    "randn_float": lambda t: t.randn(2.5),
    "randn_str": lambda t: t.randn("a"),
    "rand_negative": lambda t: t.rand(2, -1),
    "randint_empty_range": lambda t: t.randint(5, 5, (2,)),
    "randint_reversed_range": lambda t: t.randint(5, 2, (2,)),
    "randint_no_size": lambda t: t.randint(0, 5),
    "randint_negative_size": lambda t: t.randint(0, 5, (-1,)),
    "randint_shape": lambda t: t.randint(0, 5, (2, 3)).shape,
    "randperm_negative": lambda t: t.randperm(-1),
    "randperm_float": lambda t: t.randperm(2.5),
    "linspace_negative": lambda t: t.linspace(0, 1, -1),
    "linspace_float_steps": lambda t: t.linspace(0, 1, 2.5),
    "linspace_zero_steps": lambda t: t.linspace(0, 1, 0),
    # arange
    "arange_step_zero": lambda t: t.arange(0, 5, 0),
    "arange_float_step_zero": lambda t: t.arange(0, 5, 0.0),
    "arange_wrong_sign": lambda t: t.arange(5, 0, 1),
    "arange_wrong_sign_negative_step": lambda t: t.arange(0, 5, -1),
    "arange_negative_end": lambda t: t.arange(-3),
    "arange_float_wrong_sign": lambda t: t.arange(1.5, 0.5, 0.25),
    "arange_nan": lambda t: t.arange(float("nan")),
    "arange_inf": lambda t: t.arange(float("inf")),
    "arange_inf_end": lambda t: t.arange(0.5, float("inf"), 1),
    "arange_minus_inf": lambda t: t.arange(float("-inf"), 1),
    "arange_infinite_step": lambda t: t.arange(0, 3, float("inf")),
    "arange_bool_end": lambda t: t.arange(True),
    "arange_str": lambda t: t.arange("a"),
    "arange_none": lambda t: t.arange(None),
    "arange_float_end": lambda t: t.arange(5.5),
    # tensor(data)
    "tensor_none": lambda t: t.tensor(None),
    "tensor_str": lambda t: t.tensor("abc"),
    "tensor_bytes": lambda t: t.tensor(b"ab"),
    "tensor_str_in_list": lambda t: t.tensor([1, "a"]),
    "tensor_str_first": lambda t: t.tensor(["a"]),
    "tensor_none_in_list": lambda t: t.tensor([None]),
    "tensor_none_later": lambda t: t.tensor([1, None]),
    "tensor_ragged": lambda t: t.tensor([[1, 2], [3]]),
    "tensor_not_a_sequence": lambda t: t.tensor([[1, 2], 3]),
    "tensor_list_as_number": lambda t: t.tensor([1, [2]]),
    "tensor_list_as_float": lambda t: t.tensor([1.5, [2]]),
    "tensor_dict": lambda t: t.tensor({1: 2}),
    "tensor_object": lambda t: t.tensor(object()),
    "tensor_too_big": lambda t: t.tensor(2**63),
    "tensor_too_big_in_list": lambda t: t.tensor([2**64]),
    "tensor_smallest_int64": lambda t: t.tensor(-(2**63)),
    "tensor_promoted": lambda t: t.tensor([1, 2.5, True]),
    "tensor_empty_rows": lambda t: t.tensor([[], []]),
    "tensor_range": lambda t: t.tensor(range(3)),
    "tensor_numpy_scalars": lambda t: t.tensor([np.float64(1.0), np.float64(2.0)]),
    "tensor_of_tensors_and_numbers": lambda t: t.tensor([t.tensor(1), 2.5]),
}

JOINS: dict[str, Any] = {
    "cat_ranks": lambda t: t.cat([t.ones(2), t.ones(2, 2)]),
    "cat_shapes": lambda t: t.cat([t.ones(2, 3), t.ones(3, 2)]),
    "cat_shapes_dim1": lambda t: t.cat([t.ones(2, 3), t.ones(3, 2)], dim=1),
    "cat_dim_out_of_range": lambda t: t.cat([t.ones(2), t.ones(2)], dim=1),
    "cat_negative_dim_out_of_range": lambda t: t.cat([t.ones(2), t.ones(2)], dim=-2),
    "cat_empty_list": lambda t: t.cat([]),
    "cat_list_inside": lambda t: t.cat([t.ones(2), [1.0]]),
    "cat_none_inside": lambda t: t.cat([t.ones(2), None]),
    "cat_a_tensor": lambda t: t.cat(t.ones(2)),
    "cat_an_int": lambda t: t.cat(1),
    "cat_zero_dim": lambda t: t.cat([t.tensor(1.0), t.tensor(2.0)]),
    "cat_zero_dim_second": lambda t: t.cat([t.ones(2), t.tensor(1.0)]),
    "cat_float_dim": lambda t: t.cat([t.ones(2), t.ones(2)], dim=0.5),
    "cat_float_dim_positional": lambda t: t.cat([t.ones(2)], 0.5),
    "cat_tuple": lambda t: t.cat((t.ones(2), t.ones(2))),
    "cat_skips_1d_empty": lambda t: t.cat([t.ones(0), t.ones(2, 2)]),
    "cat_skips_1d_empty_dim1": lambda t: t.cat([t.ones(0), t.ones(2, 2)], dim=1),
    "cat_only_1d_empty": lambda t: t.cat([t.ones(0), t.ones(0)], 3),
    "cat_2d_empty_not_skipped": lambda t: t.cat([t.ones(0, 3), t.ones(2)]),
    "cat_gradient_past_1d_empty": lambda t: _cat_grad(t),
    "cat_too_many_arguments": lambda t: t.cat(1, 2, 3, 4, 5, 6),
    "stack_shapes": lambda t: t.stack([t.ones(2), t.ones(3)]),
    "stack_ranks": lambda t: t.stack([t.ones(2), t.ones(2, 1)]),
    "stack_dim": lambda t: t.stack([t.ones(2), t.ones(2)], dim=3),
    "stack_zero_dim_dim1": lambda t: t.stack([t.tensor(1.0), t.tensor(2.0)], dim=1),
    "stack_empty": lambda t: t.stack([]),
    "stack_list_inside": lambda t: t.stack([t.ones(2), [1.0, 2.0]]),
    "stack_a_tensor": lambda t: t.stack(t.ones(2)),
}


FACTORY_CALLS: dict[str, Any] = {
    "zeros": lambda t, **kw: t.zeros(2, **kw),
    "ones": lambda t, **kw: t.ones(2, 3, **kw),
    "empty": lambda t, **kw: t.empty((2,), **kw).shape,
    "full": lambda t, **kw: t.full((2,), 1, **kw),
    "tensor": lambda t, **kw: t.tensor([1, 2], **kw),
    "as_tensor": lambda t, **kw: t.as_tensor([1, 2], **kw),
    "arange": lambda t, **kw: t.arange(3, **kw),
    "linspace": lambda t, **kw: t.linspace(0, 1, 3, **kw),
    "eye": lambda t, **kw: t.eye(2, **kw),
    "empty_strided": lambda t, **kw: t.empty_strided((2,), (1,), **kw).shape,
    "zeros_like": lambda t, **kw: t.zeros_like(t.ones(2), **kw),
    "ones_like": lambda t, **kw: t.ones_like(t.ones(2), **kw),
    "empty_like": lambda t, **kw: t.empty_like(t.ones(2), **kw).shape,
    "full_like": lambda t, **kw: t.full_like(t.ones(2), 2, **kw),
    "rand": lambda t, **kw: t.rand(2, **kw).shape,
    "randn": lambda t, **kw: t.randn(2, **kw).shape,
    "rand_like": lambda t, **kw: t.rand_like(t.ones(2), **kw).shape,
    "randn_like": lambda t, **kw: t.randn_like(t.ones(2), **kw).shape,
    "randint": lambda t, **kw: t.randint(3, (2,), **kw).shape,
    "randperm": lambda t, **kw: t.randperm(3, **kw).sort().values,
    "new_zeros": lambda t, **kw: t.ones(2).new_zeros(2, **kw),
    "new_ones": lambda t, **kw: t.ones(2).new_ones((2,), **kw),
    "new_empty": lambda t, **kw: t.ones(2).new_empty(2, **kw).shape,
    "new_full": lambda t, **kw: t.ones(2).new_full((2,), 3, **kw),
    "new_tensor": lambda t, **kw: t.ones(2).new_tensor([1, 2], **kw),
}
"""Every factory, called with keywords ``kw`` (a result shown only where its values are fixed)."""

DTYPE_ARGUMENTS: dict[str, Any] = {
    "a dtype": lambda t: t.float64,
    "float": lambda t: float,  # float64, not the default dtype
    "int": lambda t: int,
    "bool": lambda t: bool,
    "a str": lambda t: "float",
    "an int": lambda t: 3,
    "a numpy type": lambda t: np.float32,
    "a numpy dtype": lambda t: np.dtype("int64"),
    "a type": lambda t: object,
}


@pytest.mark.parametrize("value", DTYPE_ARGUMENTS.values(), ids=DTYPE_ARGUMENTS.keys())
@pytest.mark.parametrize("factory", FACTORY_CALLS.values(), ids=FACTORY_CALLS.keys())
def test_each_factory_reads_dtype_as_torch(factory: Any, value: Any) -> None:
    """``dtype=`` takes a dtype or Python's float, int, bool, read as torch reads them; a string,
    a number or a numpy dtype is torch's TypeError, in the words of the factory's parser (one
    signature: its argument; several: the invalid combination)."""
    same(lambda t: factory(t, dtype=value(t)))


@pytest.mark.parametrize("factory", FACTORY_CALLS.values(), ids=FACTORY_CALLS.keys())
def test_each_factory_names_itself_for_a_wrong_device_type(factory: Any) -> None:
    """A ``device=`` that is no device at all: torch's TypeError naming the factory itself
    (``new_zeros``, not the ``zeros`` it shares its work with), checked once, after ``dtype``."""
    same(lambda t: factory(t, device=3.5))
    same(lambda t: factory(t, dtype="float", device=3.5))
    same(lambda t: factory(t, device="cpu"))


def _cat_grad(t: Any) -> Any:
    a = t.ones(0, requires_grad=True)
    b = t.ones(2, 2, requires_grad=True)
    t.cat([a, b]).sum().backward()
    return tuple(a.grad.shape), b.grad


@pytest.mark.parametrize("program", CREATION.values(), ids=CREATION.keys())
def test_factories_refuse_as_torch(program: Any) -> None:
    same(program)


@pytest.mark.parametrize("program", JOINS.values(), ids=JOINS.keys())
def test_joins_refuse_as_torch(program: Any) -> None:
    same(program)


def test_a_read_only_numpy_array_is_written_through_as_in_torch() -> None:
    """torch ignores numpy's read-only flag (it warns, once per program) and writes anyway.

    Warnings are not compared: torch gives this one once per process, so whether this test sees
    it depends on which test ran first; the engine's own once-only warning is checked below.
    """

    def program(t: Any) -> Any:
        arr = np.ones(3, dtype=np.float32)
        arr.setflags(write=False)
        x = t.from_numpy(arr)
        x.add_(1)
        return x, arr.copy(), arr.flags.writeable

    same(program, warnings=False)


def test_the_read_only_warning_has_torch_words_and_comes_once() -> None:
    import warnings

    import ownership
    from ownership.ops import checks

    checks._warned["readonly"] = False
    arr = np.ones(2, dtype=np.float32)
    arr.setflags(write=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ownership.from_numpy(arr)
        ownership.from_numpy(arr)
    assert [str(w.message)[:40] for w in caught] == ["The given NumPy array is not writable, a"]


FACTORY_ARGS = {"tensor": ([1.0],), "zeros": (2,), "ones": (2,), "empty": (2,), "full": ((2,), 1.5)}


@pytest.mark.parametrize("name", FACTORY_ARGS)
@pytest.mark.parametrize("value", ["numpy_true", "one", "none", "zero_float", "true", "false"])
def test_requires_grad_must_be_a_python_bool(name: str, value: str) -> None:
    """torch's parser reads ``requires_grad=`` as a ``bool``: a numpy bool, an int or a float is
    refused; None is a factory's default (``bool?``), refused by ``tensor()``."""
    given = {
        "numpy_true": np.bool_(True),
        "one": 1,
        "none": None,
        "zero_float": 0.0,
        "true": True,
        "false": False,
    }[value]
    same(lambda t: getattr(t, name)(*FACTORY_ARGS[name], requires_grad=given).requires_grad)


NUMPY_BOOL_CALLS = {
    "keepdim": lambda t, x: x.sum(0, keepdim=np.bool_(True)),
    "requires_grad_": lambda t, x: x.requires_grad_(np.bool_(True)),
    "numpy_force": lambda t, x: x.numpy(force=np.bool_(True)),
    "std_unbiased": lambda t, x: x.std(0, unbiased=np.bool_(False)),
    "argmax_keepdim": lambda t, x: x.argmax(1, np.bool_(True)),
}


@pytest.mark.parametrize("call", NUMPY_BOOL_CALLS)
def test_a_numpy_bool_is_no_bool_argument(call: str) -> None:
    """A ``bool`` parameter takes a Python bool only: torch refuses ``numpy.bool``."""
    same(lambda t: NUMPY_BOOL_CALLS[call](t, t.ones(2, 3)))
