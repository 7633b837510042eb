"""``maximum``/``minimum`` (and ``max``/``min`` with ``other``, which are them), ``clamp`` with
tensor bounds, and ``clamp_min``/``clamp_max`` (and ``clamp_min_``/``clamp_max_``):
torch's values and dtypes (NaN propagated, broadcasting), its refusals, its nodes and what they
save, and its gradients (split equally on ties; a tensor bound gets the gradient where it won)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import saved_values

FORMS: dict[str, Any] = {
    "maximum": lambda t, x, y: t.maximum(x, y),
    "minimum": lambda t, x, y: t.minimum(x, y),
    "maximum method": lambda t, x, y: x.maximum(y),
    "minimum other=": lambda t, x, y: x.minimum(other=y),
    "max other": lambda t, x, y: t.max(x, y),
    "min other": lambda t, x, y: t.min(x, y),
    "max method": lambda t, x, y: x.max(y),
    "min method other=": lambda t, x, y: x.min(other=y),
    "clamp_min": lambda t, x, y: t.clamp_min(x, y),
    "clamp_max": lambda t, x, y: t.clamp_max(x, y),
    "clamp_min method": lambda t, x, y: x.clamp_min(y),
    "clamp_max min=": lambda t, x, y: x.clamp_max(max=y),
}

OPERANDS: dict[str, Any] = {
    "float32": lambda t: t.tensor([1.0, -2.0, float("nan"), 4.0]),
    "float64": lambda t: t.tensor([3.0, -2.0, 0.5, 4.0], dtype=t.float64),
    "int64": lambda t: t.tensor([5, -3, 0, 4]),
    "int32": lambda t: t.tensor([2, 7, -1, 4], dtype=t.int32),
    "bool": lambda t: t.tensor([True, False, True, False]),
    "float32 0-d": lambda t: t.tensor(float("nan")),
    "int64 column": lambda t: t.tensor([[1], [3]]),
}
NUMBERS: dict[str, Any] = {"int": 2, "float": 1.5, "True": True, "beyond int32": 2**40}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("left", ["float32", "int64", "int32", "bool"])
@pytest.mark.parametrize("right", [*OPERANDS, *NUMBERS])
def test_values_dtypes_and_refusals_are_torchs(form: str, left: str, right: str) -> None:
    def program(t: Any) -> Any:
        y = OPERANDS[right](t) if right in OPERANDS else NUMBERS[right]
        return FORMS[form](t, OPERANDS[left](t), y)

    same(program)


def test_refusals() -> None:
    same(lambda t: t.maximum(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0, 3.0])))
    same(lambda t: t.tensor([1.0]).maximum(), raises="TypeError")
    same(lambda t: t.minimum(t.tensor([1.0])), raises="TypeError")
    same(lambda t: t.tensor([1.0]).clamp_min(), raises="TypeError")
    same(lambda t: t.clamp_max(t.tensor([1.0])), raises="TypeError")
    same(lambda t: t.tensor([1.0]).clamp_max_("x"), raises="TypeError")
    same(lambda t: t.clamp_min(t.tensor([1, 2]), 2**70))
    # tensor bounds that do not broadcast with self: torch's shape error, before any other
    same(lambda t: t.ones(3).clamp(min=t.ones(2)))
    same(lambda t: t.ones(3).clamp_(min=t.ones(2)))
    same(lambda t: t.ones(3).clamp(t.zeros(3), t.ones(2)))
    same(lambda t: t.tensor([True, False]).clamp_(min=t.tensor([True, False, True])))
    same(lambda t: t.ones(3).clamp_(max=t.ones(2, 1)))


GRAD_CASES: dict[str, Any] = {
    "maximum ties": lambda t, x, y: t.maximum(x, y),
    "minimum ties": lambda t, x, y: t.minimum(x, y),
    "max other ties": lambda t, x, y: t.max(x, y),
    "min method ties": lambda t, x, y: x.min(y),
    "maximum broadcast": lambda t, x, y: t.maximum(x, y[:1]),
    "clamp tensor bounds": lambda t, x, y: t.clamp(x, min=y, max=y + 1),
    "clamp tensor max": lambda t, x, y: x.clamp(max=y),
    "minimum broadcast row": lambda t, x, y: t.minimum(x.reshape(2, 2), y[:2]),
    "clamp_min tensor": lambda t, x, y: x.clamp_min(y),
    "clamp_max tensor broadcast": lambda t, x, y: x.clamp_max(y[2]),
    "clamp_min number": lambda t, x, y: x.clamp_min(2.0),
    "clamp_max number": lambda t, x, y: t.clamp_max(x, 2),
}


@pytest.mark.parametrize("case", GRAD_CASES)
def test_nodes_saved_values_and_gradients_are_torchs(case: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0, 3.0, -1.0], requires_grad=True)
        y = t.tensor([3.0, 2.0, 1.0, -1.0], requires_grad=True)
        out = GRAD_CASES[case](t, x, y)
        fn = out.grad_fn
        saved = saved_values(fn)
        (out * t.tensor([1.0, 2.0, 3.0, 4.0]).reshape(out.shape)).sum().backward()
        return out, fn, saved, x.grad, y.grad

    same(program)


def test_second_order_gradients() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = t.tensor([3.0, 2.0, 1.0], requires_grad=True)
        out = (t.maximum(x * x, y) + x.clamp_min(y) * x).sum()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        return gx, t.autograd.grad(gx.sum(), (x, y), allow_unused=True)

    same(program)


def test_a_tie_splits_the_gradient_as_torchs_relu_by_hand() -> None:
    """The issue's program: ``torch.max(X, 0)`` written with a tensor of zeros."""

    def program(t: Any) -> Any:
        x = t.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        out = t.max(x, t.zeros_like(x))
        out.sum().backward()
        return out, x.grad

    assert same(program)[1].values.tolist() == [0.0, 0.5, 1.0]


@pytest.mark.parametrize("name", ["maximum", "minimum", "max", "min"])
def test_a_gradient_made_with_create_graph_has_torchs_nodes(name: str) -> None:
    """torch's formula ends with ``masked_fill_``: the gradient's node, and its version."""

    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = t.tensor([2.0], requires_grad=True)
        out = getattr(t, name)(x, y) ** 2
        gx, gy = t.autograd.grad(out.sum(), (x, y), create_graph=True)
        return gx, gx._version, gy, gy._version, t.autograd.grad(gx.sum() + gy.sum(), (x, y))

    same(program)


INPLACE: dict[str, Any] = {
    "clamp_min_ number": lambda t, x, y: x.clamp_min_(2.0),
    "clamp_max_ number": lambda t, x, y: t.clamp_max_(x, 2),
    "clamp_min_ tensor": lambda t, x, y: x.clamp_min_(y),
    "clamp_max_ tensor": lambda t, x, y: x.clamp_max_(max=y),
}


@pytest.mark.parametrize("form", INPLACE)
def test_in_place_forms_are_torchs(form: str) -> None:
    def program(t: Any) -> Any:
        a = t.tensor([1.0, 2.0, 3.0, -1.0], requires_grad=True)
        y = t.tensor([3.0, 2.0, 1.0, -1.0], requires_grad=True)
        x = a * 1
        out = INPLACE[form](t, x, y)
        fn = out.grad_fn
        saved = saved_values(fn)
        (out * t.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return out is x, out, x._version, fn, saved, a.grad, y.grad

    same(program)


@pytest.mark.parametrize("form", INPLACE)
@pytest.mark.parametrize("left", ["float32", "int64", "bool"])
@pytest.mark.parametrize("right", ["float32", "int64", "int64 column", "float", "int"])
def test_in_place_dtypes_and_refusals_are_torchs(form: str, left: str, right: str) -> None:
    def program(t: Any) -> Any:
        x = OPERANDS[left](t)
        y = OPERANDS[right](t) if right in OPERANDS else NUMBERS[right]
        return INPLACE[form](t, x, y), x._version

    same(program)


def test_in_place_refuses_a_leaf_that_requires_grad() -> None:
    same(lambda t: t.tensor([1.0], requires_grad=True).clamp_min_(0.0))


@pytest.mark.parametrize("case", GRAD_CASES)
def test_gradients_at_nans_are_torchs(case: str) -> None:
    def program(t: Any) -> Any:
        nan = float("nan")
        x = t.tensor([nan, 2.0, 3.0, nan], requires_grad=True)
        y = t.tensor([3.0, nan, 1.0, nan], requires_grad=True)
        out = GRAD_CASES[case](t, x, y)
        out.sum().backward()
        return out, x.grad, y.grad

    same(program)
