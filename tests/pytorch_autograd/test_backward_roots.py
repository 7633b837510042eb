# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""``backward`` with several roots, twice, through stack/unbind/chunk, and gradient buffers
summed from several branches (see conftest.py for how the tests are adapted)."""

from __future__ import annotations

from support.differential import grad_of, same


def m55(t, scale=0.1, shift=0.0, requires_grad=False):
    """A fixed 5x5 float tensor in place of the original's ``randn(5, 5)``."""
    x = t.arange(25.0).reshape(5, 5) * scale + shift
    return x.requires_grad_(requires_grad)


def test_backward() -> None:
    """TestAutograd.test_backward: gradients of a rational expression, scaled by grad_output."""

    def program(t):
        v = m55(t, requires_grad=True)
        x = m55(t, 0.05, -0.5, requires_grad=True)
        y = m55(t, 0.02, 0.1).requires_grad_(True)
        z = m55(t, -0.03, 0.4, requires_grad=True)
        grad_output = m55(t, 0.07, -0.8)
        v.backward(grad_output)
        a = x + (y * z) + 4 * z**2 * x / y
        a.backward(grad_output)
        with t.no_grad():
            x_grad = (4 * z.pow(2) / y + 1) * grad_output
            y_grad = (z - 4 * x * z.pow(2) / y.pow(2)) * grad_output
            z_grad = (8 * x * z / y + y) * grad_output
        return [grad_of(v), grad_of(x), grad_of(y), grad_of(z), x_grad, y_grad, z_grad, grad_output]

    r = same(program)
    assert all(abs(r[i].values - r[i + 3].values).max() < 1e-3 for i in (1, 2, 3))


def test_multi_backward() -> None:
    """TestAutograd.test_multi_backward: autograd.backward of two roots sharing q."""

    def program(t):
        x = m55(t, requires_grad=True)
        y = m55(t, 0.2, requires_grad=True)
        q = m55(t, -0.1, 1.0, requires_grad=True)
        a = m55(t, 0.3, -2.0, requires_grad=True)
        b = m55(t, 0.01, 0.5, requires_grad=True)
        q2 = q * 2
        z = x + y + q2
        c = a * b + q2
        grad_z = m55(t, 0.04, -0.5)
        grad_c = m55(t, -0.02, 0.3)
        t.autograd.backward([z, c], [grad_z, grad_c])
        return [grad_of(x), grad_of(y), grad_of(a), grad_of(b), grad_of(q), (grad_c + grad_z) * 2]

    r = same(program)
    assert abs(r[4].values - r[5].values).max() < 1e-6


def test_multi_backward_no_grad() -> None:
    """TestAutograd.test_multi_backward_no_grad: one root that does not require grad."""

    def program(t):
        x = m55(t, requires_grad=True)
        y = m55(t)
        z = x + y
        q = y * 2
        t.autograd.backward([z, q], [t.ones(5, 5), t.ones(5, 5)])

    assert same(program).kind == "RuntimeError"


def test_dependent_backward() -> None:
    """TestAutograd.test_dependent_backward: two roots, one a function of the other."""

    def program(t):
        x = t.linspace(-1.0, 1.0, 10, requires_grad=True)
        y = x**2
        z = y**3
        go_y = t.linspace(0.5, 2.0, 10)
        go_z = t.linspace(-1.0, 0.5, 10)
        t.autograd.backward([y, z], [go_y, go_z])
        return [grad_of(x), 2 * x * go_y + 6 * x.pow(5) * go_z]

    r = same(program)
    assert abs(r[0].values - r[1].values).max() < 1e-5


def test_duplicate_backward_root() -> None:
    """TestAutograd.test_duplicate_backward_root: the same root twice counts twice."""

    def program(t):
        a = m55(t, requires_grad=True)
        b = m55(t, -0.2, 1.0, requires_grad=True)
        x = a * b
        grad_output = m55(t, 0.03)
        t.autograd.backward([x, x], [grad_output, grad_output])
        return [grad_of(a), grad_of(b), b * grad_output * 2]

    r = same(program)
    assert abs(r[0].values - r[2].values).max() < 1e-5


def test_backward_no_grad() -> None:
    """TestAutograd.test_backward_no_grad: a None gradient for a non-scalar root."""

    def program(t):
        a = m55(t, requires_grad=True)
        b = a + 2
        t.autograd.backward([b], [None])

    assert same(program).kind == "RuntimeError"


def test_backward_twice_with_saved_values() -> None:
    """TestAutograd.test_backward_twice_with_saved_values: the second backward is refused."""

    def program(t):
        b = t.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=t.double)
        c = t.zeros(3, dtype=t.double)
        c[[1, 2]] = b[[1, 1]]
        c.backward(t.tensor([1, 1, 1], dtype=t.double))
        c.backward(t.tensor([1, 1, 1], dtype=t.double))

    assert "Specify retain_graph=True" in same(program).message


def test_backward_twice_retained_graph_with_saved_values() -> None:
    """TestAutograd.test_backward_twice_retained_graph_with_saved_values."""

    def program(t):
        b = t.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=t.double)
        c = t.zeros(3, dtype=t.double)
        c[[1, 2]] = b[[1, 1]]
        c.backward(t.tensor([1, 1, 1], dtype=t.double), retain_graph=True)
        c.backward(t.tensor([1, 1, 1], dtype=t.double))
        return grad_of(b)

    assert same(program).values.tolist() == [0, 4, 0]


def test_backward_twice_without_saved_values() -> None:
    """TestAutograd.test_backward_twice_without_saved_values: nothing saved, nothing freed."""

    def program(t):
        b = t.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=t.double)
        c = b + 1
        c.backward(t.tensor([1, 1, 1], dtype=t.double))
        c.backward(t.tensor([1, 1, 1], dtype=t.double))
        return grad_of(b)

    assert same(program).values.tolist() == [2, 2, 2]


def test_backward_twice_retained_graph_without_saved_values() -> None:
    """TestAutograd.test_backward_twice_retained_graph_without_saved_values."""

    def program(t):
        b = t.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=t.double)
        c = t.zeros(3, dtype=t.double)
        c[[1, 2]] = b[[1, 1]]
        c.backward(t.tensor([1, 1, 1], dtype=t.double), retain_graph=True)
        c.backward(t.tensor([1, 1, 1], dtype=t.double))
        return [grad_of(b), c]

    same(program)


def test_stack() -> None:
    """TestAutograd.test_stack: each input gets its slice of the gradient."""

    def program(t):
        x = m55(t, requires_grad=True)
        y = m55(t, 0.2, requires_grad=True)
        z = m55(t, 0.3, requires_grad=True)
        stacked = t.stack([x, y, z], 0)
        grad = t.arange(75.0).reshape(3, 5, 5)
        stacked.backward(grad)
        return [grad_of(x), grad_of(y), grad_of(z), grad[2]]

    r = same(program)
    assert (r[2].values == r[3].values).all()


def test_unbind() -> None:
    """TestAutograd.test_unbind: backward of all pieces, then grad of one piece at a time."""

    def program(t):
        stacked = t.arange(12.0).reshape(3, 2, 2).requires_grad_()
        x, y, z = stacked.unbind()
        grad = t.arange(12.0).reshape(3, 2, 2) * -0.5
        t.autograd.backward([x, y, z], grad.unbind())
        out = [grad_of(stacked)]
        for i in range(3):
            stacked = t.arange(12.0).reshape(3, 2, 2).requires_grad_()
            outs = stacked.unbind()
            gi = grad.unbind()[i]
            (g,) = t.autograd.grad(outs[i], stacked, gi)
            out.append(g)
        return out

    r = same(program)
    assert r[2].values[0].tolist() == [[0, 0], [0, 0]]


def test_unused_output() -> None:
    """TestAutograd.test_unused_output: only the chunk used gets a gradient."""

    def program(t):
        x = t.arange(100.0).reshape(10, 10).requires_grad_()
        outputs = x.chunk(5)
        o = outputs[2]
        o = o * 4 + 2
        o.sum().backward()
        first = x.grad.clone()
        with t.no_grad():
            x.grad.zero_()
        grad_output = t.arange(20.0).reshape(2, 10)
        outputs = x.chunk(5)
        outputs[0].backward(grad_output)
        return [first, grad_of(x)]

    r = same(program)
    assert r[0].values[4:6].tolist() == [[4] * 10] * 2 and r[0].values.sum() == 80


def test_backward_copy() -> None:
    """TestAutograd.test_backward_copy: a gradient buffered in three places is summed right."""

    def program(t):
        x = t.ones(5, 5, requires_grad=True)
        y = t.ones(5, 5, requires_grad=True)
        a = x + 2
        b = y + 2
        c = x + 2
        add1 = a + b
        add2 = add1 + c
        for _ in range(4):
            a = a * 2
            b = b * 2
            c = c * 2
        branch = a + b + c
        out = add2 + branch
        grad_output = t.ones(5, 5)
        out.backward(grad_output)
        return [grad_of(x), grad_of(y), grad_output]

    r = same(program)
    assert (r[0].values == 34).all() and (r[1].values == 17).all() and r[2].version == 0


def test_isolated_node() -> None:
    """TestAutograd.test_isolated_node: an integer branch (argmax) in the graph."""

    def program(t):
        x = m55(t, requires_grad=True)
        y = m55(t, -0.3, 2.0, requires_grad=True)
        a = x + y
        b = t.max(a, 1, True)[1].repeat(1, 5).double()
        o = (b + a).sum()
        o.backward()
        return [grad_of(x), grad_of(y), b]

    same(program)


def test_min_max_median_backprops_to_all_values() -> None:
    """TestAutogradDeviceType.test_min_max_median_backprops_to_all_values (min and max)."""

    def program(t):
        out = []
        for f in (t.min, t.max):
            x = t.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], requires_grad=True)
            y = f(x)
            y.backward()
            out += [x.grad.sum(), (grad_of(x) == 1 / 3).sum()]
        return out

    r = same(program)
    assert [r[1].values, r[3].values] == [3, 3]
