"""nn.utils against torch: gradient clipping in place (values, versions, total norm, errors) and
parameters <-> vector (what aliases what afterwards)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def with_grads(t: ModuleType) -> Any:
    a = t.nn.Parameter(t.tensor([3.0, 4.0]))
    b = t.nn.Parameter(t.tensor([[1.0, -2.0], [0.5, 0.25]]))
    c = t.nn.Parameter(t.tensor(1.0))  # never gets a gradient
    (a * a).sum().backward()
    (b * t.tensor([[1.0, -2.0], [0.5, 0.25]])).sum().backward()
    return a, b, c


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf"), "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_scales_in_place(norm_type: Any, max_norm: float) -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = with_grads(t)
        grads = a.grad, b.grad
        versions = [g._version for g in grads]
        total = t.nn.utils.clip_grad_norm_([a, b, c], max_norm, norm_type=norm_type)
        return total, versions, list(grads), a.grad is grads[0], c.grad

    same(program)


def test_clip_grad_norm_of_one_tensor_and_of_nothing() -> None:
    def program(t: ModuleType) -> Any:
        a, _, c = with_grads(t)
        return (
            t.nn.utils.clip_grad_norm_(a, 1.0),
            a.grad,
            t.nn.utils.clip_grad_norm_([c], 1.0),
            t.nn.utils.clip_grad_norm_([], 1.0),
        )

    same(program)


def test_clip_grad_norm_warns_on_an_empty_generator() -> None:
    same(lambda t: t.nn.utils.clip_grad_norm_(t.nn.ReLU().parameters(), 1.0))


def test_clip_grad_norm_non_finite() -> None:
    def program(t: ModuleType) -> Any:
        a, b, _ = with_grads(t)
        with t.no_grad():
            a.grad[0] = float("inf")
        scaled = t.nn.utils.clip_grad_norm_([a, b], 1.0)
        return scaled, b.grad, t.nn.utils.clip_grad_norm_([a, b], 1.0, error_if_nonfinite=True)

    same(program)


def test_clip_grad_value_clamps_twice() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = with_grads(t)
        result = t.nn.utils.clip_grad_value_([a, b, c], 0.75)
        t.nn.utils.clip_grad_value_(a, 0.5)
        return result, a.grad, b.grad, c.grad

    same(program)


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_value_writes_once_without_foreach(foreach: bool | None) -> None:
    def program(t: ModuleType) -> Any:
        a, b, _ = with_grads(t)
        t.nn.utils.clip_grad_value_([a, b], 0.75, foreach=foreach)
        return a.grad, b.grad, a.grad._version, b.grad._version

    same(program)


@pytest.mark.parametrize("foreach", [None, False])
def test_clip_grad_value_of_no_gradients_raises(foreach: bool | None) -> None:
    def program(t: ModuleType) -> Any:
        _, _, c = with_grads(t)
        return t.nn.utils.clip_grad_value_([c], 0.5, foreach=foreach)

    same(program)


@pytest.mark.parametrize("norm_type", [-1.0, -2.0, 0.5, 0])
def test_clip_grad_norm_of_other_orders_warns_nothing(norm_type: float) -> None:
    def program(t: ModuleType) -> Any:
        a, b, _ = with_grads(t)
        with t.no_grad():
            b.grad[0, 0] = 0.0
        return t.nn.utils.clip_grad_norm_([a, b], 1.0, norm_type=norm_type), a.grad, b.grad

    same(program)


def test_parameters_to_vector_is_a_new_tensor_in_the_graph() -> None:
    def program(t: ModuleType) -> Any:
        a, b, _ = with_grads(t)
        vec = t.nn.utils.parameters_to_vector([a, b])
        (vec * vec).sum().backward()
        return vec, vec.data_ptr() == a.data_ptr(), a.grad, b.grad

    same(program)


def test_vector_to_parameters_aliases_the_vector() -> None:
    def program(t: ModuleType) -> Any:
        a, b, _ = with_grads(t)
        vec = t.arange(6.0)
        before = a.data_ptr()
        t.nn.utils.vector_to_parameters(vec, [a, b])
        aliased = (a.data_ptr() == vec.data_ptr(), b.data_ptr() == vec.data_ptr() + 8)
        with t.no_grad():
            vec.mul_(10)
        return (
            a,
            b,
            aliased,
            a.data_ptr() != before,
            a._version,
            b._version,
            vec._version,
            type(a).__name__,
            a.grad,
        )

    same(program)


ERRORS = {
    "vector not a tensor": lambda t: t.nn.utils.vector_to_parameters([1.0], []),
    "no parameters": lambda t: t.nn.utils.parameters_to_vector([]),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_errors(case: str) -> None:
    same(ERRORS[case])


@pytest.mark.parametrize("foreach", [None, True, False])
def test_get_total_norm_takes_foreach(foreach: bool | None) -> None:
    def program(t: ModuleType) -> Any:
        a, b, _ = with_grads(t)
        return t.nn.utils.get_total_norm([a.grad, b.grad], 1.0, foreach=foreach), a.grad._version

    same(program)


@pytest.mark.parametrize("foreach", [None, True, False])
@pytest.mark.parametrize("norm_type", [2.0, float("inf"), -float("inf")])
def test_total_norms_of_empty_and_out_of_range_gradients(foreach: Any, norm_type: float) -> None:
    def program(t: ModuleType) -> Any:
        big = t.nn.Parameter(t.ones(2))
        big.grad = t.tensor([1e30, 1e30])
        small = t.nn.Parameter(t.ones(2, dtype=t.float64))
        small.grad = t.tensor([3.0, 4.0], dtype=t.float64)
        empty = t.nn.Parameter(t.ones(0))
        empty.grad = t.ones(0)
        out = []
        for params in ([big, small], [big], [small, empty]):
            try:
                total = t.nn.utils.clip_grad_norm_(params, 1.0, norm_type, foreach=foreach)
                out.append((total, [p.grad for p in params]))
            except RuntimeError as e:
                out.append(str(e))
        return out

    same(program)


def test_clip_grad_norm_converts_max_norm_with_no_gradient_to_clip() -> None:
    same(lambda t: t.nn.utils.clip_grad_norm_(t.nn.Linear(2, 2).parameters(), "abc"))


@pytest.mark.parametrize("total", ["computed", "small", "float64"])
def test_clip_grads_with_norm_scales_by_a_given_norm(total: str) -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = with_grads(t)
        norm = {
            "computed": t.nn.utils.get_total_norm([a.grad, b.grad]),
            "small": t.tensor(0.5),
            "float64": t.tensor(20.0, dtype=t.float64),
        }[total]
        result = t.nn.utils.clip_grads_with_norm_([a, b, c], 1.0, norm)
        t.nn.utils.clip_grads_with_norm_(a, 2, norm, foreach=False)
        return result, a.grad, b.grad, c.grad, a.grad._version, b.grad._version

    same(program)
