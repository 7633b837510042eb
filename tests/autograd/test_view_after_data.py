"""A view whose ``.data`` was replaced keeps its geometry on the base's gradient: when its
``grad_fn`` is rebuilt as ``AsStridedBackward0`` (or its base's as ``CopySlices``), the gradient
buffer is sized from the geometries, as torch's ``as_strided_backward`` sizes it, not from the
view's new storage (fuzz program 703144 leaked numpy's ValueError)."""

from __future__ import annotations

from typing import Any

from support.differential import same


def test_the_fuzz_programs_version_error() -> None:
    def program(t: Any) -> Any:
        t1 = t.tensor([[[0.25, 2.0, -0.0]], [[-0.5, -1.5, -0.5]]], requires_grad=True)
        t2 = t1.amax(-1)
        t3 = t2.narrow(1, 0, 1)
        t3.data = t1.sigmoid().sum()
        t2.squeeze(1).fill_(0.25)
        with t.no_grad():
            return t.autograd.grad(t3, [t2, t1])

    same(program)


def test_a_gradient_through_a_view_of_other_data() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
        y = x * 1
        v = y.narrow(0, 1, 2)
        v.data = t.tensor(5.0)
        y[0].mul_(2)
        (g,) = t.autograd.grad(v, x)
        return v.grad_fn, g

    same(program)
