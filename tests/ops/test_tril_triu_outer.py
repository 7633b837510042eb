"""``tril``, ``triu`` (and ``tril_``, ``triu_``) and ``outer``: torch's values, dtypes, layouts,
refusals, nodes and saved values, gradients and second order gradients; the in-place forms'
version counters."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import plain, same_node_and_gradients


def _x(t: Any) -> Any:
    return t.tensor([[1.5, -2.5, 0.5], [-0.5, 2.49, -1.7]])


TRIANGLES: dict[str, Any] = {
    "tril": lambda t: _x(t).tril(),
    "tril 1": lambda t: _x(t).tril(1),
    "tril -1": lambda t: t.tril(_x(t), -1),
    "tril far": lambda t: _x(t).tril(diagonal=5),
    "tril far below": lambda t: _x(t).tril(-5),
    "triu": lambda t: _x(t).triu(),
    "triu -1": lambda t: _x(t).triu(-1),
    "triu 2": lambda t: t.triu(_x(t), diagonal=2),
    "tril transposed": lambda t: _x(t).t().tril(),
    "triu batch": lambda t: t.arange(24.0).reshape(2, 3, 4).triu(1),
    "tril batch": lambda t: t.arange(24).reshape(2, 4, 3).tril(-1),
    "tril empty": lambda t: t.zeros(2, 0).tril(),
    "triu bool": lambda t: t.ones(3, 3, dtype=t.bool).triu(),
    "tril int32": lambda t: t.ones(2, 2, dtype=t.int32).tril(),
}


@pytest.mark.parametrize("form", TRIANGLES)
def test_triangles_are_torchs(form: str) -> None:
    def program(t: Any) -> Any:
        y = TRIANGLES[form](t)
        return y, y.stride(), y._base is None

    same(program)


@pytest.mark.parametrize("call", ["tril_()", "triu_()", "tril_(1)", "triu_(diagonal=-1)"])
@pytest.mark.parametrize("tensor", ["plain", "transposed", "batch"])
def test_in_place_triangles_write_self_once(call: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        x = {"plain": _x(t), "transposed": _x(t).t(), "batch": t.arange(24.0).reshape(2, 3, 4)}[
            tensor
        ]
        view = x[..., :1]
        y = eval(f"x.{call}", {"x": x})
        return y is x, x, x.stride(), x._version, view, view._version

    same(program)


REFUSALS: dict[str, Any] = {
    "tril 1-d": lambda t: t.tensor([1, 2]).tril(),
    "triu 0-d": lambda t: t.tensor(1.0).triu(),
    "tril_ 1-d": lambda t: t.tensor([1.0, 2.0]).tril_(),
    "triu_ 0-d": lambda t: t.tensor(1.0).triu_(),
    "tril_ of a leaf": lambda t: t.ones(2, 2, requires_grad=True).tril_(),
    "outer 2-d self": lambda t: t.outer(_x(t), t.tensor([1.0])),
    "outer 2-d vec2": lambda t: t.outer(t.tensor([1.0]), _x(t)),
    "outer 0-d": lambda t: t.outer(t.tensor(1.0), t.tensor([1.0])),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t))


WRONG_CALLS: dict[str, Any] = {
    "tril float": lambda t: _x(t).tril(1.0),
    "tril bool": lambda t: _x(t).tril(diagonal=True),
    "tril two": lambda t: _x(t).tril(1, 2),
    "torch.tril unknown keyword": lambda t: t.tril(_x(t), foo=1),
    "triu_ str": lambda t: _x(t).triu_("a"),
    "outer nothing": lambda t: t.tensor([1.0]).outer(),
    "outer number": lambda t: t.tensor([1.0]).outer(1),
    "torch.outer number": lambda t: t.outer(t.tensor([1.0]), 2),
}


@pytest.mark.parametrize("form", WRONG_CALLS)
def test_wrong_calls_are_refused_with_torchs_words(form: str) -> None:
    same(lambda t: WRONG_CALLS[form](t), raises="TypeError")


OUTERS: dict[str, Any] = {
    "float": lambda t: t.outer(t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0, 5.0])),
    "float and int": lambda t: t.tensor([1.0, 2.0]).outer(t.tensor([3, 4, 5])),
    "int": lambda t: t.tensor([1, 2]).outer(t.tensor([3, 4, 5])),
    "bool and int": lambda t: t.tensor([True]).outer(t.tensor([3, 4, 5])),
    "float64 keyword": lambda t: t.tensor([1.0, 2.0]).outer(vec2=t.tensor([3.0], dtype=t.float64)),
    "empty": lambda t: t.outer(t.tensor([1.0, 2.0]), t.tensor([])),
    "strided": lambda t: t.outer(t.arange(6.0)[::2], t.arange(4.0)[1::2]),
}


@pytest.mark.parametrize("form", OUTERS)
def test_outer_is_torchs(form: str) -> None:
    def program(t: Any) -> Any:
        y = OUTERS[form](t)
        return y, y.stride()

    same(program)


GRADS: dict[str, Any] = {
    "tril": lambda t, x: x.tril(),
    "tril 1": lambda t, x: t.tril(x, 1),
    "triu -1": lambda t, x: x.triu(-1),
    "triu": lambda t, x: x.triu(diagonal=0),
    "tril_": lambda t, x: (x * 1).tril_(-1),
    "triu_": lambda t, x: x.clone().triu_(1),
    "outer": lambda t, x: t.outer(x[0], x[1]),
    "outer of a column": lambda t, x: x[:, 1].outer(x[0]),
}


@pytest.mark.parametrize("case", GRADS)
def test_nodes_saved_values_and_gradients_are_torchs(case: str) -> None:
    same_node_and_gradients(
        lambda t: t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True), GRADS[case]
    )


@pytest.mark.parametrize("case", GRADS)
def test_second_order_gradients_are_torchs(case: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        out = (GRADS[case](t, x) ** 2 * 1.5).sum()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        return gx, gx.grad_fn, plain(t.autograd.grad((gx * gx).sum(), x))

    same(program)
