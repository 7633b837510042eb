"""In-place on a view of a non-leaf: the base's history is rebased onto CopySlices.

Ports the results of torch's ``test_inplace_on_view_*`` / ``test_inplace_view_*`` tests
(test/test_autograd.py), with fixed values in place of ``randn``.
"""

from __future__ import annotations

import pytest

from support.differential import same
from support.gradients import plain, saved_values

ROOT = [[1.0, 2.0], [3.0, 4.0]]


def test_inplace_view_backprop_base() -> None:
    def program(t):
        root = t.tensor(ROOT, requires_grad=True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v1.mul_(2)
        x.sum().backward()
        return [plain(root.grad), x, v1, x._version]

    r = same(program)
    assert r[0].values.tolist() == [[2, 2], [1, 1]]
    assert r[1].grad_fn == "torch::autograd::CopySlices"


def test_inplace_view_backprop_view_of_view() -> None:
    def program(t):
        root = t.tensor(ROOT, requires_grad=True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v2 = x.narrow(0, 0, 1)
        v1.mul_(2)
        v2.sum().backward()
        return [plain(root.grad), v2]

    assert same(program)[0].values.tolist() == [[2, 2], [0, 0]]


def test_inplace_view_of_view() -> None:
    def program(t):
        root = t.tensor(ROOT, requires_grad=True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v2 = v1.narrow(1, 1, 1)
        v2.mul_(2)
        x.sum().backward()
        return [plain(root.grad), x, v1, v2]

    assert same(program)[0].values.tolist() == [[1, 2], [1, 1]]


def test_inplace_view_non_contig() -> None:
    def program(t):
        root = t.ones(2, 3, 2).select(2, 1).t().requires_grad_(True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v2 = v1.narrow(1, 1, 1)
        v2.mul_(2)
        x.sum().backward()
        return [plain(root.grad), root.stride(), x.stride()]

    assert same(program)[0].values.tolist() == [[1, 2], [1, 1], [1, 1]]


def test_inplace_view_backprop_view() -> None:
    def program(t):
        a = t.tensor([2.0, 5.0])
        b = t.tensor([3.0], requires_grad=True)
        res = a.narrow(0, 1, 1).mul_(b)
        res.sum().backward()
        return [plain(b.grad), a, res, a.is_leaf, a.requires_grad, a.grad_fn]

    r = same(program)
    assert r[0].values.tolist() == [5.0] and r[3] is False


def test_inplace_view_makes_base_require_grad() -> None:
    def program(t):
        a = t.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
        b = t.tensor([[1.5, 2.5], [3.5, 4.5]], requires_grad=True)
        x = a.clone()
        before = x.requires_grad
        x.narrow(1, 2, 2).mul_(b)
        after = x.requires_grad
        (x * x).sum().backward()
        return [before, after, x, plain(b.grad)]

    r = same(program)
    assert r[:2] == [False, True]


def test_inplace_view_modify_base() -> None:
    def program(t):
        r = t.ones(1, requires_grad=True)
        x = t.ones(5)
        v = x.select(0, 1)
        before = [v.requires_grad, v.grad_fn]
        x.add_(r)
        after = [v.requires_grad, v.grad_fn]
        (v * 3).backward()
        return [before, after, plain(r.grad), x]

    same(program)


def test_inplace_view_gradcheck_values() -> None:
    def program(t):
        a = t.arange(16.0, dtype=t.float64).view(4, 4).requires_grad_()
        b = t.tensor([[1.5, -2.0], [0.5, 3.0]], dtype=t.float64, requires_grad=True)
        x = a.clone()
        x.narrow(1, 2, 2).narrow(0, 1, 2).mul_(b)
        x.narrow(1, 0, 2).narrow(0, 1, 2).mul_(b)
        (x * x).sum().backward()
        return [x, plain(a.grad), plain(b.grad)]

    same(program)


def test_inplace_view_gradcheck_passes() -> None:
    def program(t):
        a = t.arange(16.0, dtype=t.float64).view(4, 4).requires_grad_()
        b = t.tensor([[1.5, -2.0], [0.5, 3.0]], dtype=t.float64, requires_grad=True)

        def func(root, b):
            x = root.clone()
            x.narrow(1, 2, 2).narrow(0, 1, 2).mul_(b)
            x.narrow(1, 0, 2).narrow(0, 1, 2).mul_(b)
            return x

        return t.autograd.gradcheck(func, (a, b))

    assert same(program) is True


def test_inplace_view_then_no_grad() -> None:
    def program(t):
        a = t.ones(3, 1, dtype=t.float64, requires_grad=True)
        b = a * 2
        c = b.view(3, 1)
        c[0][0] = 3
        with t.no_grad():
            c.grad_fn
        c.sum().backward()
        return [plain(a.grad), b, c]

    same(program)


def test_grad_fn_names_after_an_inplace_on_a_view() -> None:
    def program(t):
        root = t.tensor(ROOT, requires_grad=True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        other = x[1]
        before = [x.grad_fn.name(), v1.grad_fn.name(), other.grad_fn.name()]
        v1.mul_(2)
        after = [x.grad_fn.name(), v1.grad_fn.name(), other.grad_fn.name()]
        return [before, after, x.grad_fn.next_functions, v1.grad_fn.next_functions]

    r = same(program)
    assert r[1][0] == "torch::autograd::CopySlices"


def test_setitem_on_a_non_leaf_rebases_the_base() -> None:
    def program(t):
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = w * 2
        y[1] = 0.0
        y.sum().backward()
        return [y, plain(w.grad), y.grad_fn.next_functions]

    r = same(program)
    assert r[1].values.tolist() == [2.0, 0.0, 2.0]


def test_setitem_with_a_grad_requiring_value() -> None:
    def program(t):
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = t.tensor(5.0, requires_grad=True)
        y = w * 2
        y[0] = s * s
        y[2:] = w[:1] * 10
        (y * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        return [y, plain(w.grad), plain(s.grad)]

    same(program)


def test_gradient_through_other_views_after_the_write() -> None:
    def program(t):
        root = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        x = root * 1
        row0 = x[0]
        col1 = x[:, 1]
        tr = x.t()
        row0.exp_()
        loss = (col1 * t.tensor([1.0, 10.0])).sum() + (tr**2).sum() + x.sum()
        loss.backward()
        return [plain(root.grad), row0, col1, tr, x]

    same(program)


@pytest.mark.parametrize(
    "write",
    [
        "v.add_(1)",
        "v.mul_(v)",
        "v.sigmoid_()",
        "v.relu_()",
        "v.clamp_(-1, 2)",
        "v.exp_()",
        "v.zero_()",
        "v.fill_(2)",
        "v.copy_(w[:1] * 3)",
        "v.div_(w[:1] + 1)",
        "v.sub_(w[1])",
        "v[0] = w[2]",
    ],
)
@pytest.mark.parametrize("view", ["x[0]", "x[:, 1]", "x.t()[1]", "x.view(6)[1:3]", "x[1, ::2]"])
def test_inplace_through_views_gives_torchs_gradients(view: str, write: str) -> None:
    def program(t):
        w = t.tensor([0.5, -1.5, 2.0], requires_grad=True)
        x = (w * t.tensor([[1.0], [2.0]])).view(2, 3)
        v = eval(view)
        exec(write)
        loss = (x * t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum() + v.sum()
        loss.backward()
        return [x, v, plain(w.grad), x._version]

    same(program)


def test_a_chain_of_inplace_ops_on_views_of_views() -> None:
    def program(t):
        w = t.tensor([0.5, -1.5, 2.0, 1.0], requires_grad=True)
        x = w * 2.0
        a = x.view(2, 2)
        b = a[0]
        c = a[:, 1]
        b.mul_(2)
        c.add_(w[:2])
        a.t()[0].sigmoid_()
        (x * t.arange(4.0)).sum().backward()
        return [x, a, b, c, plain(w.grad), x._version]

    same(program)


def test_inplace_on_a_view_of_a_saved_tensor_is_caught() -> None:
    def program(t):
        w = t.tensor([0.5, -1.5, 2.0], requires_grad=True)
        x = w.sigmoid()
        x[0:2].mul_(2)
        x.sum().backward()

    same(program)


def test_inplace_on_a_view_then_backward_twice_with_retain_graph() -> None:
    def program(t):
        w = t.tensor([0.5, -1.5, 2.0], requires_grad=True)
        x = w * 1
        x[1:].mul_(w[:2])
        x.sum().backward(retain_graph=True)
        x.sum().backward()
        return plain(w.grad)

    same(program)


@pytest.mark.parametrize(
    "write",
    [
        "a.view(-1).sub_(w)",  # SubBackward0 saves no tensor: CopySlices itself is freed
        "a[1:].mul_(w)",
        "a.unsqueeze(0)[0, 1:].copy_(w.expand(2))",
        "a[:2].add_(1)",  # w is not written in: the base's edge only (a requires grad)
    ],
)
@pytest.mark.parametrize("second", ["backward", "grad", "retained"])
def test_a_second_backward_through_copyslices_is_refused(write: str, second: str) -> None:
    """A backward without ``retain_graph`` frees a ``CopySlices`` (torch drops its op's node,
    saved tensors or not): a second backward through it raises, even when the op saved nothing;
    with ``retain_graph=True`` the first time, the second runs."""

    def program(t):
        w = t.tensor(2.0, requires_grad=True)
        a = t.tensor([3.0, 1.0, 2.0])
        if "add_" in write:  # a history that saves nothing either (AddBackward0)
            a = a + w
        exec(write, {"a": a, "w": w})
        a.sum().backward(retain_graph=second == "retained")
        if second == "grad":
            return t.autograd.grad(a.sum(), [w]), plain(w.grad)
        a.sum().backward()
        return plain(w.grad), a.grad_fn.next_functions

    same(program)


@pytest.mark.parametrize(
    "view",
    ["y[1:4:2]", "y.view(3, 4)[1:, 1:3].t()", "y.view(3, 4)[2]", "y[5:6].view(1, 1)"],
)
def test_a_rebased_views_as_strided_node_shows_what_it_saved(view: str) -> None:
    """After the base is written in place, a view's new ``AsStridedBackward0`` shows the view's
    size, strides and storage offset, as torch's ``as_strided`` saved them (also after backward:
    they are numbers, never freed)."""

    def program(t):
        x = t.arange(12.0).requires_grad_()
        y = x * 1
        v = eval(view, {"y": y})
        y.add_(1)
        fn = v.grad_fn
        before = saved_values(fn)
        (v * 2).sum().backward()
        return fn, before, saved_values(fn), x.grad

    same(program)
