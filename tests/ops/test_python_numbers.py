"""A Python int beside a tensor, under torch and ownership, at and beyond each dtype's range.

An elementwise op computing in an integer dtype keeps the number's low bits (``int32 + 2**32``
adds 0, ``int64 < 2**63`` compares with ``-2**63``); ``clamp``, ``where``, ``alpha`` and a
``pow`` exponent refuse a number their dtype cannot hold; a number from ``2**63`` up does not
promote with a bool tensor; ``alpha`` is refused as torch's ``alpha_check`` refuses it. The rules
live in :mod:`ownership.ops.python_numbers`; no numpy ``OverflowError`` may reach the user.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

NUMBERS = [5, -3, 2**31, -(2**31) - 1, 2**40, 2**63 - 1, -(2**63), 2**63, 2**64 - 1]
DTYPES = ("bool", "int32", "int64", "float32")

OPS: dict[str, Any] = {
    "add": lambda x, n: x + n,
    "radd": lambda x, n: n + x,
    "sub": lambda x, n: x - n,
    "rsub": lambda x, n: n - x,
    "mul": lambda x, n: x * n,
    "div": lambda x, n: x / n,
    "pow": lambda x, n: x**n,
    "rpow": lambda x, n: n**x,
    "eq": lambda x, n: x == n,
    "ne": lambda x, n: x != n,
    "lt": lambda x, n: x < n,
    "ge": lambda x, n: x >= n,
    "add alpha": lambda x, n: x.add(1, alpha=n),
    "sub scaled": lambda x, n: x.sub(n, alpha=2),
    "add_": lambda x, n: x.clone().add_(n),
    "sub_": lambda x, n: x.clone().sub_(n),
    "mul_": lambda x, n: x.clone().mul_(n),
    "div_": lambda x, n: x.clone().div_(n),
    "pow_": lambda x, n: x.clone().pow_(n),
    "sub_ scaled": lambda x, n: x.clone().sub_(n, alpha=3),
    "clamp min": lambda x, n: x.clamp(min=n),
    "clamp max": lambda x, n: x.clamp(max=n),
    "clamp_": lambda x, n: x.clone().clamp_(max=n),
    "where": lambda x, n: x.where(x > 0, n),
    "fill_": lambda x, n: x.clone().fill_(n),
    "setitem": lambda x, n: x.clone().__setitem__(0, n),
}


def _tensor(t: Any, dtype: str) -> Any:
    return t.tensor([1, 0, 3]).to(getattr(t, dtype))


@pytest.mark.parametrize("number", NUMBERS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_a_python_int_is_read_as_torch_reads_it(op: str, dtype: str, number: int) -> None:
    same(lambda t: OPS[op](_tensor(t, dtype), number))


ALPHAS = [2, 1.5, 1.0, True, False, 2**31, 2**63]


@pytest.mark.parametrize("alpha", ALPHAS, ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("call", ["add", "sub", "add_", "add tensor"])
def test_alpha_is_checked_as_torch_checks_it(call: str, dtype: str, alpha: Any) -> None:
    def program(t: Any) -> Any:
        x = _tensor(t, dtype)
        if call == "add":
            return x.add(True if dtype == "bool" else 2, alpha=alpha)
        if call == "sub":
            return x.sub(2, alpha=alpha)
        if call == "add_":
            return x.clone().add_(x, alpha=alpha)
        return x.add(x, alpha=alpha)

    same(program)


BOUND_ALPHAS = [1e300, -1e39, 3.5e38, float("inf"), 2**63, -(2**63), 2**64, -(2**63) - 1]


@pytest.mark.parametrize("alpha", BOUND_ALPHAS, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("call", ["add", "add_", "sub", "sub_"])
def test_alpha_is_converted_to_the_dtype_checked(call: str, dtype: str, alpha: Any) -> None:
    """torch reads alpha as a Number (an int beyond 64 bits is refused), negates it for ``sub``
    as an int64 (``-(-2**63)`` is itself), then converts it to the dtype, checked: 1e300 into
    float32 is refused with 'value cannot be converted to type float without overflow'."""

    def program(t: Any) -> Any:
        x = t.ones(2, dtype=getattr(t, dtype))
        return getattr(x, call)(t.ones(2, dtype=x.dtype), alpha=alpha), x._version

    same(program)


@pytest.mark.parametrize("alpha", [-0.5, 2, True], ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("call", ["add", "sub", "add_", "sub_"])
def test_a_0d_tensor_alpha_is_read_as_its_number(call: str, dtype: str, alpha: Any) -> None:
    """torch reads a 0-d tensor given for a Number (``p.add_(g, alpha=-lr)`` with a tensor
    ``lr``) as its value; a tensor of more elements is refused."""

    def program(t: Any) -> Any:
        x = _tensor(t, dtype)
        a = t.tensor(alpha)
        if call == "add":
            return x.add(x, alpha=a)
        if call == "sub":
            return x.sub(x, alpha=a)
        y = x.clone()
        return getattr(y, call)(x, alpha=a), y._version

    same(program)


def test_a_tensor_alpha_of_more_elements_is_refused() -> None:
    same(lambda t: t.ones(2).add(t.ones(2), alpha=t.tensor([1.0, 2.0])))


CLAMP_BOUNDS: dict[str, Any] = {
    "float number": lambda t: {"min": 1.5},
    "int and float": lambda t: {"min": 1, "max": 2.5},
    "float 0-d tensor": lambda t: {"min": t.tensor(1.5)},
    "number and tensor": lambda t: {"min": t.tensor(1.5), "max": 3},
    "two tensors": lambda t: {"min": t.tensor(0.5), "max": t.tensor(2.5)},
    "bool number": lambda t: {"max": True},
    "int number": lambda t: {"max": 1},
    "int tensor": lambda t: {"min": t.tensor(1)},
}


@pytest.mark.parametrize("bounds", CLAMP_BOUNDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_clamp__refuses_a_result_its_tensor_cannot_hold(dtype: str, bounds: str) -> None:
    def program(t: Any) -> Any:
        x = _tensor(t, dtype)
        return x.clamp_(**CLAMP_BOUNDS[bounds](t)), x._version

    same(program)


@pytest.mark.parametrize("number", [-(2**63) - 1, 2**64, -(2**64)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_an_index_assignment_reads_an_int_as_a_long_long(dtype: str, number: int) -> None:
    same(lambda t: _tensor(t, dtype).__setitem__(0, number))


@pytest.mark.parametrize("number", NUMBERS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_a_bitwise_op_keeps_an_ints_low_bits(op: str, dtype: str, number: int) -> None:
    ops = {"&": lambda x: x & number, "|": lambda x: x | number, "^": lambda x: number ^ x}
    same(lambda t: ops[op](_tensor(t, dtype)))
