"""``log1p``, ``expm1`` and ``erf`` and their in-place forms: torch's values (exact near 0,
torch's NaN and infinities), dtypes (integers give the default float dtype; their in-place forms
are refused), nodes and what they save, gradients (torch's formulas, so second order too),
version counters."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same
from support.gradients import same_node_and_gradients, second_order

NAN, INF = float("nan"), float("inf")
TENSORS: dict[str, Any] = {
    "float32": lambda t: t.tensor([[0.5, -0.25, 3.0], [-0.75, 2.0, 10.0]]),
    "tiny": lambda t: t.tensor([1e-10, -1e-12, 1e-30, 0.0, -0.0]),
    "tiny float64": lambda t: t.tensor([1e-10, -1e-15, 3e-300], dtype=t.float64),
    "float64": lambda t: t.tensor([[-3.5, 0.1], [1.5, 6.0]], dtype=t.float64),
    "edges": lambda t: t.tensor([-1.0, -2.0, 100.0, -100.0, 5.5]),
    "nonfinite": lambda t: t.tensor([NAN, INF, -INF]),
    "int64": lambda t: t.tensor([1, 2, -3]),
    "int32": lambda t: t.tensor([0, 4], dtype=t.int32),
    "bool": lambda t: t.tensor([True, False]),
    "0-d": lambda t: t.tensor(0.3),
    "empty": lambda t: t.zeros(0, 2),
    "transposed": lambda t: t.tensor([[0.3, 1.7], [-0.2, 5.5], [0.9, -0.1]]).t(),
}
NAMES = ["log1p", "expm1", "erf"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("tensor", TENSORS)
def test_values_and_dtypes_are_torchs(name: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        return getattr(x, name)(), getattr(t, name)(x)

    same(program)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("tensor", ["float32", "tiny", "float64", "0-d", "transposed", "int64"])
def test_in_place_forms_write_self_once_or_refuse(name: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        view = x[..., :1] if x.dim() else x.view(())
        y = getattr(x, name + "_")()
        z = getattr(t, name + "_")(x)
        return y is x, z is x, x, x._version, view, view._version

    same(program)


WRONG_CALLS: dict[str, Any] = {
    "log1p argument": lambda t: t.tensor([1.0]).log1p(1),
    "expm1_ argument": lambda t: t.tensor([1.0]).expm1_(1),
    "torch.erf two": lambda t: t.erf(t.tensor([0.5]), 1),
    "torch.log1p number": lambda t: t.log1p(1.0),
}


@pytest.mark.parametrize("form", WRONG_CALLS)
def test_wrong_calls_are_refused_with_torchs_words(form: str) -> None:
    same(lambda t: WRONG_CALLS[form](t), raises="TypeError")


GRADS: dict[str, Any] = {
    "log1p": lambda t, x: x.log1p(),
    "expm1": lambda t, x: t.expm1(x),
    "erf": lambda t, x: x.erf(),
    "log1p_": lambda t, x: x.clone().log1p_(),
    "expm1_": lambda t, x: (x * 1).expm1_(),
    "erf_": lambda t, x: t.erf_(x + 0),
}


def _leaf(t: Any) -> Any:
    return t.tensor([[0.5, -0.25, 3.0], [-0.75, 2.0, 0.0]], requires_grad=True)


@pytest.mark.parametrize("case", GRADS)
def test_nodes_saved_values_and_gradients_are_torchs(case: str) -> None:
    same_node_and_gradients(_leaf, GRADS[case])


@pytest.mark.parametrize("case", GRADS)
def test_second_order_gradients_are_torchs(case: str) -> None:
    def program(t: Any) -> Any:
        x = _leaf(t)
        return second_order(t, GRADS[case](t, x).sum(), x)

    same(program)


@pytest.mark.parametrize("case", ["log1p", "erf", "expm1"])
def test_a_write_into_what_was_saved_is_seen_by_backward(case: str) -> None:
    def program(t: Any) -> Any:
        x = _leaf(t)
        h = x * 1
        y = GRADS[case](t, h)
        (y if case == "expm1" else h).add_(1)
        return error_of(lambda: y.sum().backward()) or grad_of(x)

    same(program)
