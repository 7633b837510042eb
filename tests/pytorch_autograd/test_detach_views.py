# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""``detach`` and ``detach_``, views and in-place ops on views, indexing gradients (see
conftest.py for how the tests are adapted)."""

from __future__ import annotations

import gc

import pytest

from support.differential import grad_of, same


def m(t, requires_grad=True):
    """A fixed 10x10 tensor in place of the original's ``randn(10, 10)``."""
    return (t.arange(100.0).reshape(10, 10) * 0.02 - 1).requires_grad_(requires_grad)


def test_detach() -> None:
    """TestAutograd.test_detach: detach cuts the graph; x gets only the direct gradient."""

    def program(t):
        x = m(t)
        y = (x + 2).detach()
        z = y * 4 + 2
        out = [y.requires_grad, z.requires_grad]
        x = m(t)
        y = (x * 2).detach()
        out += [y.requires_grad, y.grad_fn]
        z = x + y
        z.sum().backward()
        return [*out, grad_of(x)]

    r = same(program)
    assert r[:4] == [False, False, False, None] and (r[4].values == 1).all()


def test_detach_inplace() -> None:
    """TestAutograd.test_detach, in-place part: ``a.detach_()`` between two backwards."""

    def program(t):
        x = m(t)
        y = m(t) * 0 + 1
        y = y.detach().requires_grad_()
        a = x * 2
        (y + a).sum().backward(retain_graph=True)
        a.detach_()
        out = [a.requires_grad, a.grad_fn, a.is_leaf]
        (y + a).sum().backward()
        return [*out, grad_of(x), grad_of(y)]

    r = same(program)
    assert r[:3] == [False, None, True] and (r[3].values == 2).all() and (r[4].values == 2).all()


def test_detach_inplace_on_view() -> None:
    """TestAutograd.test_detach, last part: ``detach_`` of a view is refused."""

    def program(t):
        view = m(t).narrow(0, 1, 4)
        view.detach_()

    assert "view" in same(program).message


def test_detach_base() -> None:
    """TestAutograd.test_detach_base: detaching the base does not detach its view."""

    def program(t):
        x = m(t)
        view = x.narrow(0, 1, 4)
        x.detach_()
        return [x.requires_grad, view.requires_grad, view.grad_fn, view._base is x]

    r = same(program)
    assert r[0] is False and r[1] is True and r[3] is True


def test_inplace_view_weak_grad_fn() -> None:
    """TestAutograd.test_inplace_view_weak_grad_fn: b's grad_fn survives ``del b``."""

    def program(t):
        a = t.arange(10.0, requires_grad=True)
        b = a.narrow(0, 0, 2).clone().view(-1)
        b.relu_()
        c = b.clone()
        del b
        gc.collect()
        s = c.sum()
        s.backward()
        return [s, grad_of(a)]

    assert same(program)[0].values == 1.0


def test_inplace_view_weak_grad_fn_saved() -> None:
    """TestAutograd.test_inplace_view_weak_grad_fn, second part: relu_ saved its output."""

    def program(t):
        a = t.linspace(0.1, 1.0, 10, requires_grad=True).narrow(0, 0, 10)
        b = a.relu_()
        c = b.add_(100)
        del b
        c.sum().backward(t.ones(1, requires_grad=True))

    assert same(program).kind == "RuntimeError"


def test_inplace_view_multiple_outputs() -> None:
    """TestAutogradDeviceType.test_inplace_view_multiple_outputs: an unbind view, in place."""

    def program(t):
        root = t.arange(9.0).reshape(3, 3).requires_grad_()
        x = root.clone()
        v1 = x.unbind()
        v1[0].mul_(2)

    assert "Output 0 of Unbind is a view and is being modified inplace" in same(program).message


@pytest.mark.parametrize("split", ["split", "chunk"])
def test_inplace_view_multi_output_safe(split: str) -> None:
    """TestAutogradDeviceType.test_inplace_view_multi_output_safe (split and chunk).

    The stored original expects a deprecation warning suggesting the ``unsafe_`` version; in
    torch 2.13 the deprecation has run out and the in-place op raises.
    """

    def program(t):
        a = t.arange(9.0).reshape(3, 3).requires_grad_()
        b = a + a
        s1, s2, _s3 = b.split(1) if split == "split" else b.chunk(3)
        s1.mul_(s2)

    assert "Output 0 of Split is a view and is being modified inplace" in same(program).message


def test_inplace_view_multi_output_unsafe() -> None:
    """TestAutogradDeviceType.test_inplace_view_multi_output_unsafe."""

    def program(t):
        out = []
        for f in (lambda v: v.unsafe_split(1), lambda v: v.unsafe_chunk(3)):
            a = t.arange(9.0).reshape(3, 3).requires_grad_()
            b = a + a
            s1, s2, _s3 = f(b)
            s1.mul_(s2)
            s1.sum().backward()
            out.append(grad_of(a))
        return out

    same(program)


MASK = [
    [True, False, True, True],
    [False, False, True, False],
    [True, True, False, False],
    [False, True, False, True],
]
INDICES_2D = [
    1,
    (1, 1),
    slice(1, None),
    slice(None, 2),
    (slice(None, 2), 2),
    (slice(1, 2), 2),
    (1, slice(2, None)),
    (slice(None, None), slice(2, None)),
    "long[0, 2]",
    "mask",
    (Ellipsis, slice(2, None)),
    ([0], [0]),
    ([1, 2, 3], [0]),
    ([1, 2], [2, 1]),
    ([[1, 2], [3, 0]], [[0, 1], [2, 3]]),
    (slice(None), [2, 3]),
    ([2, 3], slice(None)),
    [0],
    ([0],),
]
INDICES_3D = [
    (slice(None), [0], [0]),
    ([0], [0], slice(None)),
    (slice(None), [0, 1, 2], [0]),
    ([0, 1, 2], [0], slice(None)),
    (slice(None), [1, 2], [2, 1]),
    ([1, 2], [2, 1], slice(None)),
    (slice(None), [[1, 2], [2, 0]], [[0, 1], [2, 3]]),
    ([[1, 2], [3, 0]], [[0, 1], [2, 2]], slice(None)),
    (slice(None), slice(None), [2, 1]),
    (slice(None), [2, 1], slice(None)),
    ([2, 1], slice(None), slice(None)),
    ([0],),
    ([0], slice(None)),
    ([0], Ellipsis),
    ([1, 2], [0, 1]),
    ([1, 2], [0, 1], Ellipsis),
    (Ellipsis, [1, 2], [0, 1]),
    "long[0, 1], Ellipsis",
]


@pytest.mark.parametrize(
    ("shape", "idx"),
    [((4, 4), i) for i in INDICES_2D] + [((4, 3, 4), i) for i in INDICES_3D],
    ids=str,
)
def test_indexing(shape: tuple[int, ...], idx: object) -> None:
    """TestAutograd.test_indexing: ``y[idx]`` has x[idx]'s values and a 0/1 gradient."""

    def program(t):
        n = 1
        for s in shape:
            n *= s
        x = t.arange(1.0, n + 1).view(*shape)
        y = x.clone().requires_grad_()
        if idx == "long[0, 2]":
            index = t.tensor([0, 2])
        elif idx == "mask":
            index = t.tensor(MASK)
        elif idx == "long[0, 1], Ellipsis":
            index = (t.tensor([0, 1]), Ellipsis)
        else:
            index = idx
        indexed_tensor = x[index]
        indexed_var = y[index]
        indexed_var.sum().backward()
        return [indexed_tensor, indexed_var.data, grad_of(y)]

    r = same(program)
    assert (r[2].values.sum() == r[0].values.size) or r[0].values.ndim == 0
