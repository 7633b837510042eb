"""``&``, ``|`` and ``^``: torch's bitwise ops on bool and integer tensors (bool results only for
bools, no kernel for a floating result), as operators, reflected operators, methods and
functions; ``logical_and``/``logical_or`` stay bool for every dtype."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from support.differential import same

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
