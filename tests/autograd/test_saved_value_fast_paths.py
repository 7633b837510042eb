"""Saved inputs read and freed as torch reads and frees them.

A saved input of every kind ``SavedTensor.unpack`` tells apart (a leaf, a non-leaf, a constant,
a view, a tensor written since saved, one detached in place) is read by a backward as torch
reads it, errors included. The engine frees an op's saved values itself; a node with state
values (an advanced index's indices) goes through ``OpNode.release``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from support.differential import error_of, grad_of, same


def saved_input_reads(t: ModuleType) -> dict[str, Any]:
    """Backward through a product by ``w`` whose saved ``self`` is of every kind ``unpack``
    tells apart: a leaf, a non-leaf, a constant, a view, a written tensor, a detached one."""
    out: dict[str, Any] = {}
    leaf = t.tensor([1.0, -1.0], requires_grad=True)
    w = t.tensor([2.0, 3.0], requires_grad=True)

    def backward(key: str, product: Any) -> None:
        out[key] = error_of(lambda: product.sum().backward())
        out[key + " grads"] = (grad_of(leaf), grad_of(w))
        leaf.grad = w.grad = None

    backward("leaf", leaf * w)
    backward("non-leaf", (leaf * 2) * w)
    backward("constant", t.tensor([4.0, 5.0]) * w)
    backward("view", (leaf * 1)[0:2] * w)
    written = leaf * 3
    product = written * w
    with t.no_grad():
        written.add_(1)
    backward("written", product)
    detached = leaf * 4
    product = detached * w
    detached.detach_()
    backward("detached in place", product)
    return out


def test_every_kind_of_saved_input_reads_as_torchs() -> None:
    same(saved_input_reads)


def declined_reads(t: ModuleType) -> dict[str, Any]:
    """Backward through a product whose saved input the quick read declines: a view, a tensor
    written since saved, one detached in place."""
    out: dict[str, Any] = {}
    w = t.tensor([2.0, 3.0], requires_grad=True)
    x = t.tensor([1.0, -1.0, 0.5], requires_grad=True)
    view = (x * 1)[1:]
    (view * w).sum().backward()
    out["view"] = (grad_of(x), grad_of(w))
    written = x[:2] * 3
    product = written * w
    with t.no_grad():
        written.add_(1)
    out["written"] = error_of(lambda: product.sum().backward())
    detached = x[:2] * 4
    product = detached * w
    detached.detach_()
    out["detached"] = error_of(lambda: product.sum().backward())
    return out


def test_a_declined_saved_input_reads_as_torchs() -> None:
    same(declined_reads)


def freed_index_state(t: ModuleType) -> list[Any]:
    """An advanced index's node keeps its indices as saved values (``save_state``): a backward
    frees them with the saved tensors, an op's node that keeps none frees only those."""
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x[t.tensor([0, 2])]
    z = x * 2
    (y.sum() + z.sum()).backward()
    return [
        error_of(lambda: y.grad_fn._saved_indices),
        error_of(lambda: z.grad_fn._saved_other),
        error_of(lambda: z.grad_fn._saved_self),
        grad_of(x),
    ]


def test_a_backward_frees_an_index_nodes_state_as_torch() -> None:
    same(freed_index_state)
