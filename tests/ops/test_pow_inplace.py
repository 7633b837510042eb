"""``pow_`` with a tensor exponent (``x **= e``, ``x.pow_(e)``): torch's values and dtypes
(computed in the promoted dtype, written back in ``self``'s), refusals, one version bump, the
``PowBackward1`` node and what it saves, gradients of both operands."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same
from support.gradients import node_and_gradients

WRITES: dict[str, Any] = {
    "float": lambda t: t.tensor([2.0, 3.0, 4.0]).pow_(t.tensor([2.0, 0.5, -1.0])),
    "float by int": lambda t: t.tensor([2.0, 3.0]).pow_(t.tensor([2, 1])),
    "int by int": lambda t: t.tensor([2, 3, 5]).pow_(t.tensor([2, -1, 0])),
    "int32 by int64": lambda t: t.tensor([2, 3], dtype=t.int32).pow_(t.tensor([2, 3])),
    "broadcast": lambda t: t.tensor([[2.0, 3.0], [4.0, 5.0]]).pow_(t.tensor([2.0, 1.0])),
    "0-d exponent float64": lambda t: t.tensor([2.0, 3.0]).pow_(t.tensor(2.0, dtype=t.float64)),
    "float64 exponent": lambda t: t.tensor([2.0, 3.0]).pow_(t.tensor([2.0, 3.0], dtype=t.float64)),
    "nan and inf": lambda t: t.tensor([-2.0, 0.0]).pow_(t.tensor([0.5, -1.0])),
    "operator": lambda t: _ipow(t.tensor([1.5, 2.0]), t.tensor([3.0, 2.0])),
    "itself": lambda t: _pow_itself(t.tensor([2.0, 3.0])),
}


def _ipow(x: Any, e: Any) -> Any:
    x **= e
    return x


def _pow_itself(x: Any) -> Any:
    return x.pow_(x)


@pytest.mark.parametrize("form", WRITES)
def test_values_dtypes_and_versions_are_torchs(form: str) -> None:
    def program(t: Any) -> Any:
        y = WRITES[form](t)
        return y, y._version

    same(program)


REFUSALS: dict[str, Any] = {
    "float into int": lambda t: t.tensor([2, 3]).pow_(t.tensor([2.0, 1.0])),
    "int into bool": lambda t: t.tensor([True]).pow_(t.tensor([2])),
    "broadcast beyond self": lambda t: t.tensor([2.0, 3.0]).pow_(t.tensor([[2.0], [1.0]])),
    "a leaf": lambda t: t.tensor([2.0, 3.0], requires_grad=True).pow_(t.tensor([1.0, 2.0])),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t))


GRADS: dict[str, Any] = {
    "both": lambda t, x, e: (x * 1).pow_(e),
    "self only": lambda t, x, e: (x * 1).pow_(e.detach()),
    "exponent only": lambda t, x, e: (x.detach() * 1).pow_(e),
    "0-d exponent": lambda t, x, e: x.clone().pow_(e[1]),
    "broadcast exponent": lambda t, x, e: (x * 1).expand(2, 3).clone().pow_(e),
}


@pytest.mark.parametrize("case", GRADS)
def test_node_saved_values_and_gradients_are_torchs(case: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.5, 2.0, 0.5], requires_grad=True)
        e = t.tensor([2.0, 0.5, 3.0], requires_grad=True)
        y = GRADS[case](t, x, e)
        return node_and_gradients(t, y, x, e)

    same(program)


def test_a_write_into_the_exponent_is_seen_by_backward() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.5, 2.0], requires_grad=True)
        e = t.tensor([2.0, 3.0])
        y = (x * 1).pow_(e)
        e.add_(1)
        try:
            y.sum().backward()
        except RuntimeError as err:
            return str(err)
        return grad_of(x)

    same(program)
