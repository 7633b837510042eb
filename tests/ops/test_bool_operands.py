"""A Python bool (or a numpy bool) beside a tensor in every Python operator, under torch and ownership.

torch wraps a Python bool as a 0-d bool tensor: ``x - True`` is refused as ``x - bool_tensor``
is ("Subtraction, the `-` operator, with a bool tensor is not supported..."), ``b - True`` as two
bool tensors are; the other operators compute. A numpy bool is read as a float (``int_tensor *
np.bool_(True)`` is a float tensor, ``x - np.bool_(True)`` computes). A power computed in bool
has no kernel when the exponent is a tensor (``True ** b``, ``b ** b``), but computes for a number
exponent (``b ** True``).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

from support.differential import same

OPERATORS = {
    name: getattr(operator, name)
    for name in (
        "add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
        "and_", "or_", "xor",
        "eq", "ne", "lt", "le", "gt", "ge",
    )
}  # fmt: skip
IN_PLACE = {
    name: getattr(operator, name)
    for name in ("iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior")
}
DTYPES = ("bool", "int64", "float32")
BOOLS: dict[str, Any] = {
    "True": True,
    "False": False,
    "np.True_": np.bool_(True),
    "np.False_": np.bool_(False),
}


def _tensor(t: Any, dtype: str) -> Any:
    return t.tensor([0, 1, 3], dtype=getattr(t, dtype))


@pytest.mark.parametrize("number", BOOLS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OPERATORS)
def test_operator_with_a_bool(name: str, dtype: str, number: str) -> None:
    op, n = OPERATORS[name], BOOLS[number]
    same(lambda t: op(_tensor(t, dtype), n))
    same(lambda t: op(n, _tensor(t, dtype)))


@pytest.mark.parametrize("number", BOOLS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_operator_with_a_bool(name: str, dtype: str, number: str) -> None:
    op, n = IN_PLACE[name], BOOLS[number]
    same(lambda t: op(_tensor(t, dtype), n))


@pytest.mark.parametrize("n", [True, False])
def test_sub_forms_refuse_a_bool(n: bool) -> None:
    """Every spelling of a subtraction refuses a Python bool: the function, the method, the
    in-place method with and without ``alpha``, and a tensor that requires grad."""
    for program in (
        lambda t: t.sub(t.tensor([1.0, 2.0]), n),
        lambda t: t.tensor([1.0, 2.0]).sub(n),
        lambda t: t.tensor([1.0, 2.0]).sub(n, alpha=2),
        lambda t: t.tensor([1.0, 2.0]).sub_(n),
        lambda t: t.tensor([1, 2]).sub_(n, alpha=2),
        lambda t: t.tensor([1.0, 2.0], requires_grad=True) - n,
        lambda t: n - t.tensor([1.0, 2.0], requires_grad=True),
        lambda t: t.tensor([True]).sub(n),
    ):
        same(program)


def test_bool_power_with_a_tensor_exponent() -> None:
    """torch's NotImplementedError for a power in bool with a tensor exponent, in every form,
    after the shapes are checked; an integer result computes."""
    for program in (
        lambda t: t.tensor([True, False]) ** t.tensor([True, True]),
        lambda t: t.pow(t.tensor([True, False]), t.tensor(True)),
        lambda t: t.pow(True, t.tensor([True, False])),
        lambda t: t.tensor([True, False]).pow_(t.tensor([False, True])),
        lambda t: t.pow(t.tensor([True, False]), t.tensor([True, False, True])),
        lambda t: t.tensor([True, False]) ** t.tensor([1, 0]),
        lambda t: t.tensor([1, 0]).pow_(t.tensor([True, False])),
    ):
        same(program)


@pytest.mark.parametrize(
    "expr", ["+t.tensor([True, False])", "+t.tensor(True)", "+t.tensor([1, 2])", "+t.ones(2)"]
)
def test_unary_plus(expr: str) -> None:
    """``+x`` is ``x`` itself, refused for a bool tensor (torch's ``positive``)."""
    same(lambda t: eval(expr))


def test_unary_plus_is_the_tensor_itself() -> None:
    def program(t):
        x = t.ones(2, requires_grad=True)
        return [+x is x, (+x).grad_fn is None]

    assert same(program) == [True, True]
