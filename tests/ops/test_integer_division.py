"""``//`` and ``%`` (``floor_divide``, ``remainder``) and ``div(..., rounding_mode=...)``: torch's
values and dtypes (no float promotion, Python's signs, a float divisor of zero), its refusals
(integer division by zero, Bool, an unknown mode), its nodes (``NotImplemented``,
``RemainderBackward0/1``, ``DivBackward2``), what they save and their gradients, and the in-place
forms (``//=``, ``%=``, ``floor_divide_``, ``remainder_``, ``div_(..., rounding_mode=...)``)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import saved_values

FORMS: dict[str, Any] = {
    "//": lambda t, x, y: x // y,
    "%": lambda t, x, y: x % y,
    "floor_divide": lambda t, x, y: t.floor_divide(x, y),
    "remainder": lambda t, x, y: t.remainder(x, y),
    "floor_divide method": lambda t, x, y: x.floor_divide(y),
    "remainder other=": lambda t, x, y: x.remainder(other=y),
    "div trunc": lambda t, x, y: x.div(y, rounding_mode="trunc"),
    "div floor": lambda t, x, y: t.div(x, y, rounding_mode="floor"),
    "div None": lambda t, x, y: x.div(y, rounding_mode=None),
}
REFLECTED: dict[str, Any] = {
    "r//": lambda t, x, y: y // x,
    "r%": lambda t, x, y: y % x,
    "remainder of a number": lambda t, x, y: t.remainder(y, x),
    "div of a number": lambda t, x, y: t.div(y, x, rounding_mode="floor"),
}

OPERANDS: dict[str, Any] = {
    "float32": lambda t: t.tensor([7.0, -7.0, 3.5, -4.0, 0.0, 5.0]),
    "float64": lambda t: t.tensor([2.0, 2.0, -1.5, -2.0, 3.0, 0.0], dtype=t.float64),
    "int64": lambda t: t.tensor([7, -7, 3, -4, 0, 9]),
    "int64 divisors": lambda t: t.tensor([2, 2, -2, 3, -3, 4]),
    "int32": lambda t: t.tensor([2, 3, -1, 4, 5, -6], dtype=t.int32),
    "int64 with a zero": lambda t: t.tensor([2, 0, 1, 1, 1, 1]),
    "bool": lambda t: t.tensor([True, False, True, True, False, True]),
    "int64 0-d": lambda t: t.tensor(3),
    "float32 column": lambda t: t.tensor([[2.0], [-3.0]]),
}
NUMBERS: dict[str, Any] = {"int": 2, "negative int": -3, "float": 2.5, "zero": 0, "True": True}
NUMBERS_BEYOND = {"beyond int32": 2**33 + 3, "2**63": 2**63}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("left", ["float32", "int64", "int32", "bool"])
@pytest.mark.parametrize("right", [*OPERANDS, *NUMBERS, *NUMBERS_BEYOND])
def test_values_dtypes_and_refusals_are_torchs(form: str, left: str, right: str) -> None:
    def program(t: Any) -> Any:
        y = OPERANDS[right](t) if right in OPERANDS else {**NUMBERS, **NUMBERS_BEYOND}[right]
        return FORMS[form](t, OPERANDS[left](t), y)

    same(program)


@pytest.mark.parametrize("form", REFLECTED)
@pytest.mark.parametrize("right", ["float32", "int64 divisors", "int64 with a zero", "bool"])
@pytest.mark.parametrize("number", NUMBERS)
def test_a_number_divided_by_a_tensor_is_torchs(form: str, right: str, number: str) -> None:
    same(lambda t: REFLECTED[form](t, OPERANDS[right](t), NUMBERS[number]))


def test_refusals() -> None:
    same(lambda t: t.tensor([1.0]).div(t.tensor([2.0]), rounding_mode="round"))
    same(lambda t: t.tensor([1.0]).div(2, rounding_mode=1), raises="TypeError")
    same(lambda t: t.div(t.tensor([1.0]), 2, rounding_mode=1), raises="TypeError")
    same(lambda t: t.tensor([1.0]).floor_divide(), raises="TypeError")
    same(lambda t: t.remainder(t.tensor([1.0])), raises="TypeError")
    same(lambda t: t.tensor([1.0]).remainder_("x"), raises="TypeError")
    same(lambda t: t.tensor([1.0]) // None, raises="TypeError")
    same(lambda t: t.tensor([1.0, 2.0]) % t.tensor([1.0, 2.0, 3.0]))


GRAD_CASES: dict[str, Any] = {
    "% tensor": lambda t, x, y: x % y,
    "% number": lambda t, x, y: x % 1.5,
    "remainder broadcast": lambda t, x, y: t.remainder(x, y[:1]),
    "// tensor": lambda t, x, y: x // y,
    "// number": lambda t, x, y: x // 2,
    "r//": lambda t, x, y: 7 // x,
    "r%": lambda t, x, y: 7.0 % x,
    "div floor": lambda t, x, y: x.div(y, rounding_mode="floor"),
    "div trunc number": lambda t, x, y: x.div(2, rounding_mode="trunc"),
    "div None": lambda t, x, y: t.div(x, y, rounding_mode=None),
    "div trunc broadcast": lambda t, x, y: x.reshape(2, 2).div(y[:2], rounding_mode="trunc"),
}


def _backward(out: Any) -> str | None:
    """Run ``out.sum().backward()``: None, or the message of the error it raises (the nodes
    without a derivative), so that a program that refuses its backward still shows its nodes."""
    try:
        out.sum().backward()
    except RuntimeError as e:
        return str(e)
    return None


def _node_facts(fn: Any) -> Any:
    saved = saved_values(fn)
    return fn, fn.name(), [edge[0] is None for edge in fn.next_functions], saved


@pytest.mark.parametrize("case", GRAD_CASES)
@pytest.mark.parametrize("grad_of", ["both", "self"])
def test_nodes_saved_values_and_gradients_are_torchs(case: str, grad_of: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([5.0, -7.0, 3.5, -1.0], requires_grad=True)
        y = t.tensor([2.0, 2.0, -1.5, -1.0], requires_grad=grad_of == "both")
        out = GRAD_CASES[case](t, x, y)
        facts = _node_facts(out.grad_fn)
        weights = t.tensor([1.0, 2.0, 3.0, 4.0]).reshape(out.shape)
        return out, facts, _backward(out * weights), x.grad, y.grad

    same(program)


def test_second_order_gradients_of_remainder() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([5.0, -7.0, 3.5], requires_grad=True)
        y = t.tensor([2.0, 2.0, -1.5], requires_grad=True)
        (gy,) = t.autograd.grad((x % (y * y)).sum(), y, create_graph=True)
        return gy, t.autograd.grad(gy.sum(), (x, y), allow_unused=True)

    same(program)


INPLACE: dict[str, Any] = {
    "//=": lambda t, x, y: x.__ifloordiv__(y),
    "%=": lambda t, x, y: x.__imod__(y),
    "floor_divide_": lambda t, x, y: x.floor_divide_(y),
    "remainder_": lambda t, x, y: x.remainder_(other=y),
    "div_ floor": lambda t, x, y: x.div_(y, rounding_mode="floor"),
    "div_ trunc": lambda t, x, y: x.div_(y, rounding_mode="trunc"),
    "div_ None": lambda t, x, y: x.div_(y, rounding_mode=None),
}


@pytest.mark.parametrize("form", INPLACE)
@pytest.mark.parametrize("left", ["float32", "int64", "bool"])
@pytest.mark.parametrize(
    "right", ["float32", "int64 divisors", "int64 with a zero", "float32 column", "int", "float"]
)
def test_in_place_values_dtypes_and_refusals_are_torchs(form: str, left: str, right: str) -> None:
    def program(t: Any) -> Any:
        x = OPERANDS[left](t)
        y = OPERANDS[right](t) if right in OPERANDS else NUMBERS[right]
        out = INPLACE[form](t, x, y)
        return out is x, out, x._version

    same(program)


@pytest.mark.parametrize("form", INPLACE)
@pytest.mark.parametrize("other", ["tensor", "number"])
def test_in_place_nodes_and_gradients_are_torchs(form: str, other: str) -> None:
    def program(t: Any) -> Any:
        a = t.tensor([5.0, -7.0, 3.5, -1.0], requires_grad=True)
        y = t.tensor([2.0, 2.0, -1.5, -1.0], requires_grad=True)
        x = a * 1
        out = INPLACE[form](t, x, y if other == "tensor" else 2.0)
        facts = _node_facts(out.grad_fn)
        return (
            out,
            x._version,
            facts,
            _backward(out * t.tensor([1.0, 2.0, 3.0, 4.0])),
            a.grad,
            y.grad,
        )

    same(program)


def test_in_place_refuses_a_leaf_that_requires_grad() -> None:
    same(lambda t: t.tensor([1.0], requires_grad=True).remainder_(2.0))
    same(lambda t: t.tensor([1.0], requires_grad=True).div_(2.0, rounding_mode="floor"))


@pytest.mark.parametrize("right", ["float32", "int64 divisors", "int"])
@pytest.mark.parametrize("number", [7, -7.5])
def test_floor_divide_of_a_number_is_torchs(right: str, number: float) -> None:
    def program(t: Any) -> Any:
        y = OPERANDS[right](t) if right in OPERANDS else NUMBERS[right]
        return t.floor_divide(number, y)

    same(program)
    same(lambda t: t.floor_divide(number, t.tensor([2.0, 3.0], requires_grad=True)).grad_fn)


def test_in_place_refuses_an_overlapping_divisor() -> None:
    for form in ("//=", "%="):
        same(lambda t, form=form: (lambda x: INPLACE[form](t, x[1:], x[:-1]))(t.arange(1.0, 5.0)))


def test_floor_divide_in_place_into_a_tensor_without_grad() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([5.0, -7.0])
        x //= t.tensor([2.0, 2.0], requires_grad=True)
        return len(x.grad_fn.next_functions)

    same(program)


def test_floor_divide_in_place_into_a_view_without_grad() -> None:
    """Written into a view, the ``CopySlices`` keeps the base's edge only (torch drops the
    divisor's, the node's edge it takes for ``self``'s); backward reaches the node's error."""

    def program(t: Any) -> Any:
        x = t.tensor([5.0, -7.0, 3.0])
        v = x[:2]
        v //= t.tensor([2.0, 2.0], requires_grad=True)
        facts = [x.grad_fn.next_functions, v.grad_fn.next_functions[0][0] is x.grad_fn, x]
        try:
            x.sum().backward()
        except RuntimeError as e:
            facts.append(str(e))
        return facts

    same(program)
