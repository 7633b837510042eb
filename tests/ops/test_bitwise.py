"""``&``, ``|`` and ``^``: torch's bitwise ops on bool and integer tensors (bool results only for
bools, no kernel for a floating result), as operators, reflected operators, methods and
functions; ``logical_and``/``logical_or`` stay bool for every dtype."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from support.differential import same
from support.gradients import written_in_place

OPERATORS: dict[str, Any] = {
    "and": lambda x, y: x & y,
    "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y,
    "rand": lambda x, y: y & x,
    "ror": lambda x, y: y | x,
    "rxor": lambda x, y: y ^ x,
    "bitwise_and method": lambda x, y: x.bitwise_and(y),
    "bitwise_or function": lambda x, y: _engine(x).bitwise_or(x, y),
    "bitwise_xor other=": lambda x, y: x.bitwise_xor(other=y),
    "logical_and": lambda x, y: x.logical_and(y),
    "logical_or": lambda x, y: x.logical_or(y),
}


def _engine(x: Any) -> Any:
    """The engine module of the tensor ``x`` (``torch`` or ``ownership``)."""
    return sys.modules[type(x).__module__.split(".")[0]]


def _tensors(t: Any) -> dict[str, Any]:
    return {
        "bool": t.tensor([True, False, True, False]),
        "int64": t.tensor([5, 3, -8, 0]),
        "int32": t.tensor([5, 3, -8, 0], dtype=t.int32),
        "float32": t.tensor([1.0, 2.0, 3.0, 4.0]),
        "int64 0-d": t.tensor(6),
        "int64 0-d beyond int32": t.tensor(2**40 + 6),
        "bool 0-d": t.tensor(True),
    }


OTHERS: dict[str, Any] = {
    "True": True,
    "int": 6,
    "negative int": -2,
    "float": 1.5,
    **{name: name for name in ("bool", "int64", "int32", "float32")},
    **{name: name for name in ("int64 0-d", "int64 0-d beyond int32", "bool 0-d")},
}


CASES = [
    (op, left, other)
    for op in OPERATORS
    for left in ("bool", "int64", "int32", "float32")
    for other in OTHERS
    if not op.startswith("r") or not isinstance(OTHERS[other], str)  # reflected: from a number
]


@pytest.mark.parametrize(("op", "left", "other"), CASES)
def test_each_bitwise_op_is_torchs(op: str, left: str, other: str) -> None:
    def program(t: Any) -> Any:
        tensors = _tensors(t)
        y = OTHERS[other]
        y = tensors[y] if isinstance(y, str) else y
        return OPERATORS[op](tensors[left], y)

    same(program)


def test_bitwise_ops_refuse_what_they_cannot_take() -> None:
    same(lambda t: t.tensor([True]) & None, raises="TypeError")
    same(lambda t: t.tensor([1, 2]) ^ t.tensor([1, 2, 3]))
    same(lambda t: t.tensor([1.0]).requires_grad_() | 1)


INPLACE: dict[str, Any] = {
    "&=": lambda x, y: x.__iand__(y),
    "|=": lambda x, y: x.__ior__(y),
    "^=": lambda x, y: x.__ixor__(y),
    "bitwise_and_": lambda x, y: x.bitwise_and_(y),
    "bitwise_xor_ other=": lambda x, y: x.bitwise_xor_(other=y),
}


@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("left", ["bool", "int64", "int32", "float32"])
@pytest.mark.parametrize("op", INPLACE)
def test_each_bitwise_op_in_place_writes_the_same_tensor(op: str, left: str, other: str) -> None:
    def program(t: Any) -> Any:
        tensors = _tensors(t)
        y = OTHERS[other]
        return written_in_place(INPLACE[op], tensors[left], tensors[y] if isinstance(y, str) else y)

    same(program)


def test_an_augmented_bitwise_assignment_writes_through_every_alias() -> None:
    def program(t: Any) -> Any:
        mask = t.tensor([True, False, True])
        alias = mask
        mask &= t.tensor([True, True, False])
        mask |= False
        mask ^= t.tensor(True)
        return alias is mask, alias, alias._version

    same(program)


CONTRACT: dict[str, Any] = {
    "leaf that requires grad": lambda t: t.ones(2, requires_grad=True).__iand__(1),
    "non-leaf float": lambda t: (t.ones(2, requires_grad=True) * 1).__ior__(1),
    "int and a float that requires grad": lambda t: t.tensor([1, 2]).__ixor__(
        t.ones(2, requires_grad=True)
    ),
    "expanded": lambda t: t.tensor([1, 2]).expand(2, 2).__iand__(1),
    "outgrows its tensor": lambda t: t.tensor([1]).__iand__(t.tensor([1, 2])),
    "bool and int": lambda t: t.tensor([True]).__ior__(2),
}


@pytest.mark.parametrize("case", CONTRACT)
def test_a_bitwise_op_in_place_keeps_torchs_in_place_contract(case: str) -> None:
    same(CONTRACT[case])


def test_an_inference_tensor_refuses_a_bitwise_write_outside_inference_mode() -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            x = t.tensor([1, 2])
        return x.__iand__(1)

    same(program)
