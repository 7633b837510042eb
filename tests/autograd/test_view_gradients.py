"""Gradients that torch's backward formulas return as views, or as new tensors, and at which version.

A view whose base was written in place has its ``grad_fn`` rebuilt as ``AsStridedBackward0``
(``as_strided_``'s node is ``AsStridedBackward1``); torch's ``as_strided_backward`` scatters the
gradient into a flat buffer and returns a view of it with the base's sizes and strides, so the
gradient is a view (``_is_view()``, a ``_base`` no program holds) at version 1 (2 when the base's
geometry may overlap itself and the buffer is divided), and a view or base with no elements gets
zeros at version 1. ``CopySlices`` gives the old base a new tensor with the base's strides, at
version 2 (the gradient copied in, then the op's gradient copied over the view's region). A leaf
that steals such a gradient keeps its version (fuzz programs 369365, 400921, 382283).
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def aliasing(g: Any) -> list[Any]:
    """What a gradient shows of its memory: itself, whether it is a view, its strides, offset
    and storage size, and its base's sizes, strides, offset, values and version."""
    base = g._base
    return [
        g,
        g._is_view(),
        g.stride(),
        g.storage_offset(),
        g.untyped_storage().nbytes(),
        None if base is None else (base, base.stride(), base.storage_offset(), base._version),
    ]


def test_the_gradient_of_a_0d_tensor_through_its_rebuilt_view() -> None:
    """Fuzz program 369365: a view of the gradient has the gradient's own base, not the gradient."""

    def program(t: Any) -> Any:
        t1 = t.ones((3,), dtype=t.float32, requires_grad=True)
        t2 = t1.sum(0)
        t3 = t2.view_as(t2)
        t3.mul_(2)
        (g7,) = t.autograd.grad(t3.sum(), [t2], retain_graph=True, allow_unused=True)
        t15 = g7.unsqueeze(0).expand(2, 1)
        return [*aliasing(g7), *aliasing(t15), t15._base is g7, t15._base is g7._base]

    same(program)


def test_a_view_whose_base_was_written_through_a_detached_alias() -> None:
    """Fuzz program 400921: the leaf's gradient is a view with the leaf's strides."""

    def program(t: Any) -> Any:
        t1 = t.tensor([[0.25, -1.0, 1.0]], dtype=t.float32, requires_grad=True)
        t2 = t1.detach()
        t4 = t1.diagonal()
        with t.enable_grad():
            t5 = t4.squeeze()
        t2.zero_()
        (g8,) = t.autograd.grad(t5, [t1], retain_graph=True)
        t10 = g8.expand(3, 3)
        t5.backward()
        return [*aliasing(g8), *aliasing(t10), t10._base is g8._base, *aliasing(t1.grad)]

    same(program)


def test_a_view_whose_base_was_written_in_inference_mode() -> None:
    """Fuzz program 382283: ``flatten`` of the gradient is a view of the same buffer."""

    def program(t: Any) -> Any:
        t1 = t.tensor([1.0, 0.0, -1.5], dtype=t.float32, requires_grad=True)
        t2 = t1.select(0, 0)
        with t.inference_mode():
            t1 += 1
        (g5,) = t.autograd.grad(t2, [t1], retain_graph=True)
        t6 = g5.flatten()
        t2.backward()
        return [*aliasing(g5), *aliasing(t6), t6._base is g5._base, *aliasing(t1.grad)]

    same(program)


VIEWS = {
    "slice": lambda b: b[1:],
    "column": lambda b: b[1:, 1],
    "last row": lambda b: b[3:],
    "one element": lambda b: b[2:3, 2],
    "transpose": lambda b: b[1:3].t(),
    "expanded row": lambda b: b[0].expand(3, 3),
    "diagonal": lambda b: b.diagonal(),
    "empty": lambda b: b[:0],
    "empty of a slice": lambda b: b[1:],  # then sliced to nothing after the write
    "whole": lambda b: b.view(12),
}


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_the_gradient_of_a_base_through_a_rebuilt_view(view: Any) -> None:
    """``autograd.grad`` of the base, and ``.grad`` of a leaf behind it, through AsStridedBackward0."""
    empty_later = view is VIEWS["empty of a slice"]

    def program(t: Any) -> Any:
        a = t.arange(12.0).view(4, 3).requires_grad_()
        b = a * 1
        v = view(b)
        b.mul_(2)
        if empty_later:
            v = v[:0]
        (g,) = t.autograd.grad(v.sum(), [b], retain_graph=True)
        v.sum().backward()
        return [v.grad_fn.name(), *aliasing(g), *aliasing(a.grad), a.grad._version]

    same(program)


def test_a_geometry_that_may_overlap_takes_torchs_index_add_path() -> None:
    """Sizes (3, 2) with strides (2, 3) overlap nowhere, but torch's quick test cannot tell:
    summed in (one version), and, as the input geometry, divided by the count (two versions, the
    elements outside it 0/0)."""

    def program(t: Any) -> Any:
        w = t.zeros(12, requires_grad=True) * 1
        w.as_strided_((3, 2), (2, 3))
        first: list[Any] = []
        w.grad_fn.register_hook(lambda gi, go: first.append(gi[0]))
        w.as_strided_((4,), (2,), 1)
        second: list[Any] = []
        w.grad_fn.register_hook(lambda gi, go: second.append(gi[0]))
        w.sum().backward()
        return [*aliasing(second[0]), *aliasing(first[0])]

    same(program)


def test_an_expanded_input_geometry_divides_the_gradient() -> None:
    """``as_strided_`` of an expanded geometry: each element's gradient divided by how often the
    old geometry reads it."""

    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = x * 1
        w.as_strided_((2, 3), (0, 1))
        w.as_strided_((3,), (1,))
        got: list[Any] = []
        w.grad_fn.register_hook(lambda gi, go: got.append(gi[0]))
        (w * t.tensor([1.0, 2.0, 4.0])).sum().backward()
        return [*aliasing(got[0]), x.grad]

    same(program)


@pytest.mark.parametrize("transposed", [False, True], ids=["row-major", "transposed"])
def test_copyslices_gives_the_old_base_a_new_tensor_with_its_strides(transposed: bool) -> None:
    """The old base's gradient: the base's strides, version 2; through ``clone`` it reaches the
    leaf as it is (a view of it, through ``t()``)."""

    def program(t: Any) -> Any:
        x = t.ones(3, 2, requires_grad=True)
        b = (x.t() if transposed else x).clone()
        b[1:].mul_(2)
        (g,) = t.autograd.grad(b.sum(), [x], retain_graph=True)
        b.sum().backward()
        return [b.stride(), *aliasing(g), *aliasing(x.grad)]

    same(program)


def test_copyslices_of_an_empty_view() -> None:
    def program(t: Any) -> Any:
        x = t.ones(3, 2, requires_grad=True)
        b = x.clone()
        b[0, 0:0].mul_(2)
        (g,) = t.autograd.grad(b.sum(), [x], retain_graph=True)
        return aliasing(g)

    same(program)
