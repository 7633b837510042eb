"""``t[key] = value`` with an advanced key is torch's ``index_put_``: the value loses its leading
size-1 dims (as for any assignment), then must expand to the indexing result (``is_expandable_to``:
never the other way, as numpy's broadcasting would allow) and have the written tensor's dtype,
unless the key is one mask and the value one element (torch's ``masked_fill_``, which casts)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from support.differential import same

# (shape of the written tensor, key, the value's shape)
SHAPES: dict[str, tuple[tuple[int, ...], Any, tuple[int, ...]]] = {
    "larger than the result": ((4,), [0], (2,)),
    "larger, after a leading one": ((4,), [0], (1, 2)),
    "leading ones dropped": ((4,), [0, 1], (1, 1, 2)),
    "a trailing one is no leading one": ((4,), [0, 1], (2, 1)),
    "a size-1 dim expands": ((2, 2), [0, 1], (2, 1)),
    "too long for the result": ((2, 2), [0, 1], (3,)),
    "named without its leading one": ((2, 2), ([0, 1], [1, 1]), (1, 3)),
    "through a slice": ((2, 2), (slice(1, None), [0, 1]), (1, 1, 3)),
    "through a slice, expanded": ((2, 3), (slice(1, None), [0, 2]), (1, 1, 1)),
    "a mask": ((2, 2), "mask", (2, 2)),
    "a mask, too large": ((2, 2), "mask", (3,)),
}


@pytest.mark.parametrize("case", SHAPES)
def test_the_value_expands_to_the_indexing_result(case: str) -> None:
    shape, key, value_shape = SHAPES[case]

    def program(t: Any) -> Any:
        x = t.arange(float(t.Size(shape).numel())).view(shape)
        x[x > 0 if key == "mask" else key] = t.ones(value_shape)
        return x

    same(program)


# (the written tensor's dtype, key, the value)
DTYPES: dict[str, tuple[str, Any, Any]] = {
    "a long 0-d into float": ("float32", [0], lambda t: t.tensor(2)),
    "a long vector into float": ("float32", [0, 1], lambda t: t.tensor([1, 2])),
    "a double into float": ("float32", [0], lambda t: t.tensor(1.0, dtype=t.float64)),
    "a double requiring grad": (
        "float32",
        [0],
        lambda t: t.tensor(1.0, dtype=t.float64, requires_grad=True),
    ),
    "a bool into float": ("float32", [0], lambda t: t.tensor([True])),
    "a long into int32": ("int32", [0], lambda t: t.tensor(1)),
    "a float into long": ("int64", [1, 0], lambda t: t.tensor([0.5, 1.5])),
    "the same dtype": ("float32", [1, 0], lambda t: t.tensor([0.5, 1.5])),
    "a number is the tensor's dtype": ("float32", [0], lambda t: 2),
    "an index tensor": ("float32", "index tensor", lambda t: t.tensor(2)),
    "a 0-d bool key is no mask": ("float32", "0-d bool", lambda t: t.tensor(1)),
    "through a slice": ("float32", "slice", lambda t: t.tensor(2)),
    # one mask, one element: masked_fill_, which casts
    "a mask, one element": ("float32", "mask", lambda t: t.tensor(2)),
    "a mask, one element in one dim": ("float32", "mask", lambda t: t.tensor([2])),
    "a list of bools, one element": ("float32", [True, False, True, True], lambda t: t.tensor(2)),
    "a mask, two elements": ("float32", "mask", lambda t: t.tensor([2, 3])),
}


@pytest.mark.parametrize("case", DTYPES)
def test_the_value_has_the_written_tensors_dtype(case: str) -> None:
    dtype, key, value = DTYPES[case]

    def program(t: Any) -> Any:
        x = t.arange(4, dtype=getattr(t, dtype))
        k = (
            {
                "mask": x > 1,
                "index tensor": t.tensor([0]),
                "0-d bool": t.tensor(True),
                "slice": (slice(1, None), [0]),
            }.get(key, key)
            if isinstance(key, str)
            else key
        )
        if key == "slice":
            x = x.view(2, 2)
        x[k] = value(t)
        return x

    same(program)


# (the written tensor's dtype, the value): one mask and a one-element value is torch's
# masked_fill_ of ``value.item()``, converted to the written dtype, checked after the key
UNREPRESENTABLE: dict[str, tuple[str, Any]] = {
    "NaN into long": ("int64", lambda t: t.tensor(float("nan"))),
    "inf into long": ("int64", lambda t: t.tensor(float("inf"))),
    "-inf, float64, into long": ("int64", lambda t: t.tensor(float("-inf"), dtype=t.float64)),
    "1e20 into long": ("int64", lambda t: t.tensor(1e20, dtype=t.float64)),
    "-2**63 into long": ("int64", lambda t: t.tensor(-(2.0**63), dtype=t.float64)),
    # torch compares a float with INT64_MAX as a double (2.0**63): it fits, and is cast
    "2.0**63 into long": ("int64", lambda t: t.tensor(2.0**63, dtype=t.float64)),
    "2.0**63, float32, into long": ("int64", lambda t: t.tensor(2.0**63)),
    "2.0**64 into long": ("int64", lambda t: t.tensor(2.0**64, dtype=t.float64)),
    "2.0**31 into int32": ("int32", lambda t: t.tensor(2.0**31, dtype=t.float64)),
    "[[NaN]] into long": ("int64", lambda t: t.tensor([[float("nan")]])),
    "[[2.5]] into long": ("int64", lambda t: t.tensor([[2.5]])),
    "NaN into int32": ("int32", lambda t: t.tensor(float("nan"))),
    "inf into int32": ("int32", lambda t: t.tensor(float("inf"))),
    "2**40 long into int32": ("int32", lambda t: t.tensor(2**40)),
    "1e300 double into float": ("float32", lambda t: t.tensor(1e300, dtype=t.float64)),
    "NaN into float": ("float32", lambda t: t.tensor(float("nan"), dtype=t.float64)),
    "NaN into bool": ("bool", lambda t: t.tensor(float("nan"))),
    "1e20 into bool": ("bool", lambda t: t.tensor(1e20)),
}


@pytest.mark.parametrize("key", ["mask", "a slice, then a mask", "an empty mask", "expanded"])
@pytest.mark.parametrize("case", UNREPRESENTABLE)
def test_a_one_element_value_through_a_mask_must_fit_the_written_dtype(case: str, key: str) -> None:
    """torch refuses a value the written dtype cannot hold (NaN, inf or too large for an integer
    dtype, beyond float32's range for float32) with "value cannot be converted to type int64_t
    without overflow", even when the mask picks nothing; a bool tensor takes any value."""
    dtype, value = UNREPRESENTABLE[case]

    def program(t: Any) -> Any:
        x = t.zeros(2, 3, dtype=getattr(t, dtype))
        mask = t.tensor([[True, False, True], [False, False, False]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an expanded tensor's deprecation (compared elsewhere)
            if key == "mask":
                x[mask] = value(t)
            elif key == "a slice, then a mask":
                x[1, mask[0]] = value(t)
            elif key == "an empty mask":
                x[t.zeros(2, 3, dtype=t.bool)] = value(t)
            else:
                x[:1].expand(2, 3)[mask] = value(t)
        return x, x._version

    same(program)


@pytest.mark.parametrize("value", [2.0**63, -(2.0**63), 2.0**64, 1e19, 2.0**31])
@pytest.mark.parametrize(
    "write", ["x[mask] = v", "x[[0, 2]] = v", "x[0:2] = v", "masked_fill_", "fill_", "full"]
)
def test_a_float_number_into_long_is_checked_against_int64_max_as_a_double(
    write: str, value: float
) -> None:
    """torch's check of a Python float written into an int64 tensor compares it with INT64_MAX
    converted to a double, 2.0**63, which passes: the cast writes INT64_MIN, as in torch."""

    def program(t: Any) -> Any:
        x = t.tensor([1, 2, 3])
        mask = t.tensor([True, False, True])
        if write == "x[mask] = v":
            x[mask] = value
        elif write == "x[[0, 2]] = v":
            x[[0, 2]] = value
        elif write == "x[0:2] = v":
            x[0:2] = value
        elif write == "masked_fill_":
            x.masked_fill_(mask, value)
        elif write == "fill_":
            x.fill_(value)
        else:
            x = t.full((2,), value, dtype=t.int64)
        return x, x._version

    same(program)


def test_an_inf_gradient_at_a_written_position_gives_zero_not_nan() -> None:
    """Fuzz program 513613: ``index_put_``'s backward zeroes the gradient where it wrote (torch's
    ``grad.index_put(indices, 0)``); multiplying by a 0/1 mask would turn an inf there into NaN."""

    def program(t: Any) -> Any:
        x = t.tensor([[[-2.0, -0.0, -2.0]], [[0.5, 0.5, 1.5]]], requires_grad=True)
        y = x.cumsum(0)
        y[t.tensor([0, 0])] = 2
        (y / x.relu()).backward(t.ones(2, 1, 3))
        return x.grad

    same(program)
