"""``cross_entropy(..., label_smoothing=...)`` and ``CrossEntropyLoss(label_smoothing=...)``:
torch's composite (values, gradients, its nodes) for class indices, ignored targets, every
reduction, inputs of one, two and three dims, probability targets; torch's errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import grad_of, same


def _names(node: Any, depth: int = 3) -> Any:
    """The node's name and its inputs' names, ``depth`` levels down."""
    if node is None or depth == 0:
        return None if node is None else node.name()
    return node.name(), [_names(n, depth - 1) for n, _ in node.next_functions]


INPUTS = {
    "rows": (
        lambda t: t.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [0.0, 0.3, -0.2]]),
        lambda t: t.tensor([0, 2, 1]),
    ),
    "ignored": (
        lambda t: t.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [0.0, 0.3, -0.2]]),
        lambda t: t.tensor([0, -100, 1]),
    ),
    "one sample": (lambda t: t.tensor([1.0, 2.0, 0.5, -1.0]), lambda t: t.tensor(3)),
    "spatial": (
        lambda t: t.arange(24.0).reshape(2, 3, 4).sin(),
        lambda t: t.tensor([[0, 1, 2, 1], [2, 2, 0, -100]]),
    ),
    "probabilities": (
        lambda t: t.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]),
        lambda t: t.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]),
    ),
}


@pytest.mark.parametrize("smoothing", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", INPUTS, ids=list(INPUTS))
def test_label_smoothing_values_gradients_and_nodes(
    case: str, reduction: str, smoothing: float
) -> None:
    make_input, make_target = INPUTS[case]

    def program(t: ModuleType) -> Any:
        x = make_input(t).requires_grad_()
        loss = t.nn.functional.cross_entropy(
            x, make_target(t), reduction=reduction, label_smoothing=smoothing
        )
        (loss * t.ones_like(loss)).sum().backward(create_graph=True)
        (x.grad * x.grad).sum().backward()  # second order through the composite
        # (nll_loss of more than 2 dims: torch's NllLoss2d between views, which the engine's
        # nll_loss does not copy; the smoothing's own nodes are compared in the other cases)
        nodes = None if case == "spatial" else _names(loss.grad_fn)
        return loss, nodes, grad_of(x)

    same(program)


def test_the_module_passes_its_label_smoothing_on() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], requires_grad=True)
        loss_fn = t.nn.CrossEntropyLoss(label_smoothing=0.2, ignore_index=2)
        loss = loss_fn(x, t.tensor([0, 2]))
        loss.backward()
        return loss, grad_of(x), loss_fn.label_smoothing

    same(program)


CALLS = {
    "above one": lambda t: t.nn.functional.cross_entropy(
        t.ones(2, 3), t.tensor([0, 1]), label_smoothing=1.5
    ),
    "above one, probabilities": lambda t: t.nn.functional.cross_entropy(
        t.ones(2, 3), t.full((2, 3), 1 / 3), label_smoothing=2.0
    ),
    "negative": lambda t: t.nn.functional.cross_entropy(
        t.ones(2, 3), t.tensor([0, 1]), label_smoothing=-0.5
    ),
    "zero": lambda t: t.nn.functional.cross_entropy(
        t.ones(2, 3), t.tensor([0, 1]), label_smoothing=0.0
    ),
    "bad reduction": lambda t: t.nn.functional.cross_entropy(
        t.ones(2, 3), t.tensor([0, 1]), reduction="avg", label_smoothing=0.1
    ),
    "target out of range": lambda t: t.nn.functional.cross_entropy(
        t.ones(2, 3), t.tensor([0, 3]), label_smoothing=0.1
    ),
}


@pytest.mark.parametrize("call", CALLS, ids=list(CALLS))
def test_label_smoothing_edges_and_errors(call: str) -> None:
    same(CALLS[call])


def test_class_weights_are_out_of_the_engines_scope() -> None:
    import ownership

    with pytest.raises(NotImplementedError, match=r"^ownership does not implement the weight"):
        ownership.nn.functional.cross_entropy(
            ownership.ones(2, 3), ownership.tensor([0, 1]), weight=ownership.ones(3)
        )
