"""What ``nll_loss``'s and ``cross_entropy``'s nodes show, and their refusals of an
``ignore_index`` that is no int64, under torch and ownership: ``_saved_ignore_index`` as torch
shows a saved int (``-100`` as ``2**64 - 100``), ``_saved_total_weight`` (0 without a
reduction), and the softmax nodes' ``_saved_dim`` as given."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same


def _saved(t: Any, fn: Any) -> dict[str, Any]:
    return {
        a: getattr(fn, a)
        for a in dir(fn)
        if a.startswith("_saved_") and a not in ("_saved_self", "_saved_result", "_saved_target")
    }


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("ignore_index", [-100, 1, 5, -1])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_nll_nodes_show_what_torchs_show(reduction: str, ignore_index: int, loss: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5], [0.2, 0.3, 0.1]], requires_grad=True)
        y = t.tensor([0, 1, 2])
        inp = x.log_softmax(1) if loss == "nll_loss" else x
        out = getattr(t.nn.functional, loss)(inp, y, reduction=reduction, ignore_index=ignore_index)
        facts = (out, _saved(t, out.grad_fn))
        out.sum().backward()
        return facts, grad_of(x)

    same(program)


@pytest.mark.parametrize("value", [True, 1.5, 2**63, "a"])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_an_ignore_index_that_is_no_int64_is_refused(value: Any, loss: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0], [1.0, 0.0]])
        return getattr(t.nn.functional, loss)(x, t.tensor([0, 1]), ignore_index=value)

    same(program)


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_nodes_show_the_dim_as_given(dim: int, op: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
        out = getattr(x, op)(dim)
        facts = (
            out,
            out.grad_fn._saved_dim,
            getattr(t.nn.functional, op)(x, dim).grad_fn._saved_dim,
        )
        (out * t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        return facts, grad_of(x)

    same(program)


def test_a_0d_softmax_over_dim_minus_one() -> None:
    def program(t: Any) -> Any:
        x = t.tensor(0.5, requires_grad=True)
        out = x.log_softmax(-1)
        facts = (out, out.grad_fn._saved_dim)
        out.backward()
        return facts, grad_of(x)

    same(program)
