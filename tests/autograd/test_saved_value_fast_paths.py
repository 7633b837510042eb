"""Saved values read and freed on the engine's quick paths, as torch reads and frees them.

While nothing watches saves, an op's saved input is a ``SavedInput`` and ``unpack_all`` hands
the backward the tensor itself at once while it is no view, unwritten since saved and (unless it
was a leaf) still has its history; every other saved input goes through ``SavedTensor.unpack``,
whose errors torch's are. Both sides are checked here: the quick read against ``unpack``, and
each case it declines against torch. The engine frees an op's saved values itself; a node
with state values (an advanced index's indices) goes through ``OpNode.release``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import ownership
from ownership.autograd.saved import SavedInput, SavedTensor

from support.differential import error_of, grad_of, same


def saved_inputs() -> dict[str, tuple[Any, Any]]:
    """A tensor saved by ``mul`` (as ``self``) of every kind ``unpack_all`` tells apart, with
    the product: a leaf, a non-leaf, a constant, a view, a written tensor, a detached one."""
    w = ownership.tensor([2.0, 3.0], requires_grad=True)
    cases: dict[str, tuple[Any, Any]] = {}
    leaf = ownership.tensor([1.0, -1.0], requires_grad=True)
    cases["leaf"] = (leaf, leaf * w)
    inner = leaf * 2
    cases["non-leaf"] = (inner, inner * w)
    constant = ownership.tensor([4.0, 5.0])
    cases["constant"] = (constant, constant * w)
    view = (leaf * 1)[0:2]
    cases["view"] = (view, view * w)
    written = leaf * 3
    product = written * w
    with ownership.no_grad():
        written.add_(1)
    cases["written"] = (written, product)
    detached = leaf * 4
    product = detached * w
    detached.detach_()
    cases["detached in place"] = (detached, product)
    return cases


@pytest.mark.parametrize("case", sorted(saved_inputs()))
def test_unpack_all_reads_a_saved_input_as_unpack_does(case: str) -> None:
    tensor, product = saved_inputs()[case]
    node = product.grad_fn
    saved = node._saved["self"]
    assert type(saved) is SavedInput
    general = error_of(lambda: SavedTensor.unpack(saved, node))
    if general is not None:
        assert error_of(node.unpack_all) == general
        return
    assert SavedTensor.unpack(saved, node) is tensor
    assert node.unpack_all()["self"] is tensor


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
