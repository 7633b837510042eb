"""``<<`` and ``>>``: torch's ``bitwise_left_shift`` and ``bitwise_right_shift`` of integer
tensors (a bool tensor shifted by a number is promoted; no kernel for a bool or floating result),
as operators, reflected operators, in-place operators, methods and functions, with torch's CPU
rule for a shift by a negative amount or by the dtype's width or more."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import written_in_place

OPERATORS: dict[str, Any] = {
    "<<": lambda t, x, y: x << y,
    ">>": lambda t, x, y: x >> y,
    "bitwise_left_shift method": lambda t, x, y: x.bitwise_left_shift(y),
    "bitwise_right_shift other=": lambda t, x, y: x.bitwise_right_shift(other=y),
    "torch.bitwise_left_shift": lambda t, x, y: t.bitwise_left_shift(x, y),
    "torch.bitwise_right_shift": lambda t, x, y: t.bitwise_right_shift(input=x, other=y),
}


def _tensors(t: Any) -> dict[str, Any]:
    return {
        "int64": t.tensor([5, 3, -8, 0, -(2**62), 2**40]),
        "int32": t.tensor([5, 3, -8, 0, -(2**30), 7], dtype=t.int32),
        "bool": t.tensor([True, False, True, False, True, True]),
        "float32": t.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        "int64 0-d": t.tensor(6),
        "amounts": t.tensor([0, 1, 31, 32, 63, 64]),
        "negative amounts": t.tensor([-1, -64, 2, -3, 0, 70]),
        "int32 amounts": t.tensor([0, 1, 31, 32, -1, 5], dtype=t.int32),
    }


OTHERS: dict[str, Any] = {
    "2": 2,
    "0": 0,
    "31": 31,
    "32": 32,
    "63": 63,
    "64": 64,
    "-1": -1,
    "True": True,
    "1.5": 1.5,
    **{name: name for name in ("amounts", "negative amounts", "int32 amounts", "int64 0-d")},
    **{name: name for name in ("bool", "float32")},
}


@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("left", ["int64", "int32", "bool", "float32", "int64 0-d"])
@pytest.mark.parametrize("op", OPERATORS)
def test_each_shift_is_torchs(op: str, left: str, other: str) -> None:
    def program(t: Any) -> Any:
        tensors = _tensors(t)
        y = OTHERS[other]
        return OPERATORS[op](t, tensors[left], tensors[y] if isinstance(y, str) else y)

    same(program)


@pytest.mark.parametrize("number", [1, 3, -5, True, 2.0])
@pytest.mark.parametrize("right", ["int64", "int32", "amounts", "negative amounts", "bool"])
def test_a_number_shifted_by_a_tensor_is_torchs(number: Any, right: str) -> None:
    same(lambda t: number << _tensors(t)[right])
    same(lambda t: number >> _tensors(t)[right])
    same(lambda t: t.bitwise_left_shift(number, _tensors(t)[right]))
    same(lambda t: t.bitwise_right_shift(number, other=_tensors(t)[right]))


INPLACE: dict[str, Any] = {
    "<<=": lambda x, y: x.__ilshift__(y),
    ">>=": lambda x, y: x.__irshift__(y),
    "bitwise_left_shift_": lambda x, y: x.bitwise_left_shift_(y),
    "bitwise_right_shift_ other=": lambda x, y: x.bitwise_right_shift_(other=y),
}


@pytest.mark.parametrize("other", ["2", "-1", "64", "1.5", "amounts", "int32 amounts", "float32"])
@pytest.mark.parametrize("left", ["int64", "int32", "bool", "float32"])
@pytest.mark.parametrize("op", INPLACE)
def test_each_shift_in_place_writes_the_same_tensor(op: str, left: str, other: str) -> None:
    def program(t: Any) -> Any:
        tensors = _tensors(t)
        y = OTHERS[other]
        return written_in_place(INPLACE[op], tensors[left], tensors[y] if isinstance(y, str) else y)

    same(program)


def test_an_augmented_shift_writes_through_every_alias() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1, -16, 3])
        alias = x
        x <<= 2
        x >>= t.tensor([1, 2, 70])
        return alias is x, alias, alias._version

    same(program)


def test_shifts_refuse_what_they_cannot_take() -> None:
    same(lambda t: t.tensor([1]) << None, raises="TypeError")
    same(lambda t: None >> t.tensor([1]), raises="TypeError")
    same(lambda t: t.tensor([1, 2]) << t.tensor([1, 2, 3]))
    same(lambda t: t.tensor([1.0]).requires_grad_() << 1)
    same(lambda t: t.ones(2, requires_grad=True).__ilshift__(1))
    same(lambda t: t.tensor([1]).__irshift__(t.tensor([1, 2])))
    same(lambda t: t.bitwise_left_shift(1, 2), raises="TypeError")
