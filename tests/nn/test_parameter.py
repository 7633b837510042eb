"""Parameter: a leaf that shares storage and version counter with its data, and requires grad."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from support.differential import same


def test_requires_grad_by_default_and_is_a_leaf() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.zeros(3))
        return p, p.is_leaf, p.requires_grad, p.grad, type(p).__name__

    same(program)


def test_requires_grad_even_under_no_grad() -> None:
    def program(t: ModuleType) -> Any:
        with t.no_grad():
            p = t.nn.Parameter(t.ones(2))
        return p.requires_grad, p.is_leaf

    assert same(program) == (True, True)


def test_requires_grad_false_is_kept() -> None:
    def program(t: ModuleType) -> Any:
        return t.nn.Parameter(t.ones(2), requires_grad=False)

    same(program)


def test_shares_storage_and_version_counter_with_its_data() -> None:
    def program(t: ModuleType) -> Any:
        data = t.zeros(3)
        p = t.nn.Parameter(data)
        with t.no_grad():
            data.add_(1)
            p.mul_(3)
        return p, data, p._version, data._version, p.data_ptr() == data.data_ptr()

    same(program)


def test_of_a_non_leaf_is_a_fresh_leaf() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(2, requires_grad=True)
        y = x * 2
        p = t.nn.Parameter(y)
        return p, p.is_leaf, p.grad_fn, p._version, p.data_ptr() == y.data_ptr()

    same(program)


def test_repr() -> None:
    def program(t: ModuleType) -> Any:
        return (
            repr(t.nn.Parameter(t.tensor([1.0, 2.0]))),
            repr(t.nn.Parameter(t.zeros(2, 2))),
            repr(t.nn.Parameter(t.tensor([1.0]), requires_grad=False)),
        )

    assert same(program)[0] == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


def test_results_of_ops_and_views_are_plain_tensors() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.ones(2, 3))
        return [type(v).__name__ for v in (p * 2, p.view(6), p[0], p.t(), p.detach(), p.sum())]

    assert same(program) == ["Tensor"] * 6


def test_an_integer_tensor_cannot_be_a_parameter() -> None:
    same(lambda t: t.nn.Parameter(t.tensor([1, 2])))


def test_gradient_accumulates_into_grad() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.tensor([1.0, -2.0]))
        (p * p).sum().backward()
        first = p.grad.clone()
        (p * 3).sum().backward()
        return first, p.grad

    same(program)
