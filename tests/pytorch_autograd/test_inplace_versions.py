# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""Version counters, in-place ops on saved tensors, ``setitem`` and ``detach``/``.data`` (see
conftest.py for how the tests are adapted)."""

from __future__ import annotations

import pytest

from support.differential import error_of, grad_of, same


def test_version_counter() -> None:
    """TestAutograd.test_version_counter: views share it; ``x.data = y`` keeps it."""

    def program(t):
        x = t.tensor([[0.5, -1.5]])
        seen = [x._version]
        x.add_(1).add_(1)
        seen.append(x._version)
        xz = x[:]
        seen.append((x._version, xz._version))
        xz.add_(1)
        seen.append((x._version, xz._version))
        x.data = t.ones(2, 3)
        seen.append((x._version, xz._version))
        x.add_(1)
        seen.append((x._version, xz._version))
        xz.add_(1)
        seen.append((x._version, xz._version))
        return seen

    r = same(program)
    assert r[0] == 0 and r[1] == 2 and all(a == b for a, b in r[2:])


@pytest.mark.parametrize("part", [1, 2, 3, 4])
def test_inplace(part: int) -> None:
    """TestAutograd.test_inplace, in its four parts: which saved tensors an in-place op breaks."""

    def program(t):
        x = t.ones(5, 5, requires_grad=True)
        y = (t.ones(5, 5) * 4).requires_grad_()
        go = t.ones(5, 5)
        if part == 1:
            z = x * y
            q = z + y
            w = z * y
            z.add_(2)
            q.backward(go, retain_graph=True)
            return [error_of(lambda: w.backward(go)), grad_of(x), grad_of(y), go]
        if part == 2:
            z = x * y
            q = z * y
            r = z + y
            w = z.add_(y)
            w.backward(go, retain_graph=True)
            r.backward(go, retain_graph=True)
            return [w is z, error_of(lambda: q.backward(go)), grad_of(x), grad_of(y), go]
        if part == 3:
            m = x / 2
            z = m + y / 8
            q = z * y
            r = z + y
            prev_version = z._version
            w = z.exp_()
            seen = [z._version != prev_version]
            r.backward(go, retain_graph=True)
            seen.append(grad_of(x))
            w.backward(go, retain_graph=True)
            seen.append(grad_of(x))
            return [*seen, error_of(lambda: q.backward(go)), go]
        leaf = t.ones(5, 5, requires_grad=True)
        x = leaf.clone()
        x.add_(10)
        y = x + 2
        y.backward(go)
        z = x * y
        x.add_(2)
        return [x, grad_of(leaf), error_of(lambda: z.backward(go)), go]

    r = same(program)
    assert any(isinstance(v, str) and "modified by an inplace operation" in v for v in r)
    if part == 3:
        assert abs(r[2].values - (1 + 2.718281828) / 2).max() < 1e-5


def test_inplace_issue_8_example() -> None:
    """TestAutograd.test_inplace, part 3 as issue 8 first reduced it: the caller's ``go`` survives."""

    def program(t):
        x = t.ones(5, 5, requires_grad=True)
        y = t.ones(5, 5, requires_grad=True)
        z = (x / 2 + y / 8) + y
        go = t.ones(5, 5)
        z.backward(go)
        return [grad_of(x), grad_of(y), go]

    r = same(program)
    assert (r[0].values == 0.5).all() and (r[2].values == 1).all() and r[2].version == 0


SETITEM_CASES = [
    ((5, 5), 1),
    ((5,), 1),
    ((1,), 0),
    ((10,), ([0, 4, 2],)),
    ((5, 5), ([0, 4], [2, 2])),
    ((5, 5, 5), (slice(None), slice(None), [1, 3])),
    ((5, 5, 5), (slice(None), [1, 3], slice(None))),
    ((5, 5, 5), ([1, 3], slice(None), slice(None))),
    ((5, 5, 5), (slice(None), [2, 4], [1, 3])),
    ((5, 5, 5), ([1, 3], [2, 4], slice(None))),
]


@pytest.mark.parametrize(("size", "index"), SETITEM_CASES)
def test_setitem(size: tuple[int, ...], index: object) -> None:
    """TestAutograd.test_setitem (_test_setitem): a constant written into a non-leaf."""

    def program(t):
        x = t.ones(*size, requires_grad=True)
        y = x + 2
        y_version = y._version
        y[index] = 2
        changed = y._version != y_version
        y.backward(t.ones(*size))
        return [changed, y, grad_of(x)]

    assert same(program)[0] is True


SETITEM_TENSOR_CASES = [
    ((5, 5), 3),
    ((5, 5), ([0, 1], [1, 0])),
    ((5,), 3),
    ((5,), ([0, 1, 2, 3],)),
    ((5, 5, 5), (slice(None), slice(None), [1, 3])),
    ((5, 5, 5), (slice(None), [1, 3], slice(None))),
    ((5, 5, 5), ([1, 3], slice(None), slice(None))),
    ((5, 5, 5), (slice(None), [2, 4], [1, 3])),
    ((5, 5, 5), ([1, 3], [2, 4], slice(None))),
]


@pytest.mark.parametrize(("size", "index"), SETITEM_TENSOR_CASES)
def test_setitem_tensor(size: tuple[int, ...], index: object) -> None:
    """TestAutograd.test_setitem (_test_setitem_tensor): a grad-requiring value written in."""

    def program(t):
        x = t.ones(*size, requires_grad=True)
        y = x + 2
        y_version = y._version
        value = t.full(x[index].size(), 7.0).requires_grad_()
        y[index] = value
        changed = y._version != y_version
        y.backward(t.ones(*size))
        return [changed, y, grad_of(x), grad_of(value)]

    r = same(program)
    assert r[0] is True and (r[3].values == 1).all()


def test_setitem_tensor_broadcast() -> None:
    """TestAutograd.test_setitem (_test_setitem_tensor): ``y[1] = x`` broadcasts x."""

    def program(t):
        x = t.tensor([0.5, -1.0, 2.0, 3.0], requires_grad=True)
        y = t.zeros(2, 3, 4)
        y[1] = x
        y.backward(t.arange(24.0).reshape(2, 3, 4))
        return [y, grad_of(x)]

    assert same(program)[1].shape == (4,)


MASK = [
    [True, False, True, True, False],
    [False, False, True, False, True],
    [True, True, False, False, False],
    [False, True, False, True, True],
    [True, False, False, False, True],
]


@pytest.mark.parametrize(
    ("size", "rows", "with_tensor"),
    [
        ((5, 5), MASK, False),
        ((5,), MASK[0], False),
        ((1,), [True], False),
        ((5, 5), MASK, True),
        ((5,), MASK[0], True),
    ],
)
def test_setitem_mask(size: tuple[int, ...], rows: object, with_tensor: bool) -> None:
    """TestAutograd.test_setitem_mask: boolean masks (fixed, not ``bernoulli_``)."""

    def program(t):
        mask = t.tensor(rows)
        x = t.ones(*size, requires_grad=True)
        y = x + 2
        if with_tensor:
            value = t.full(x[mask].size(), 7.0).requires_grad_()
            y[mask] = value
        else:
            value = None
            y[mask] = 2
        y.backward(t.ones(*size))
        return [y, grad_of(x), None if value is None else grad_of(value)]

    same(program)


def test_index_backward_does_not_save_tensor() -> None:
    """TestAutograd.test_index_backward_does_not_save_tensor: indexing does not save ``tensor``."""

    def program(t):
        a = t.tensor([1.0, 0, 0])
        b = t.zeros(3, requires_grad=True)
        tensor = b + 0
        tensor[a != 0] = tensor[a != 0]
        tensor.backward(t.zeros_like(tensor))
        return [tensor, grad_of(b)]

    same(program)


def test_no_unnecessary_save() -> None:
    """TestAutograd.test_no_unnecessary_save: ``x * ft`` does not save x, so ``copy_`` is fine."""

    def program(t):
        mu = t.ones(1, requires_grad=True)
        x = t.empty(1)
        loss = 0
        for i in range(3):
            x.detach_()
            x.copy_(mu + i)
            ft = t.tensor([float(i)])
            multiplied = x * ft
            s = multiplied.sum()
            loss += s
        loss.backward()
        return [loss, grad_of(mu), x._version]

    assert same(program)[1].values.tolist() == [3.0]


def test_indexing_duplicates() -> None:
    """TestAutograd.test_indexing_duplicates: repeated indices accumulate their gradients."""

    def program(t):
        out = []
        for shape, idx in (
            ((4, 4), t.tensor([1, 1, 3, 2, 1, 2])),
            ((4, 4), ([1, 1, 3, 2, 1, 2], [0])),
            ((4, 4), ([[1, 2], [0, 0]], [[0, 1], [1, 1]])),
            ((4, 4, 4), ([1, 1, 1], slice(None), slice(None))),
        ):
            n = 1
            for s in shape:
                n *= s
            y = t.arange(1.0, n + 1).view(*shape).requires_grad_()
            y[idx].sum().backward()
            out.append(grad_of(y))
        return out

    r = same(program)
    assert r[0].values[1].tolist() == [3, 3, 3, 3] and (r[3].values[1] == 3).all()
