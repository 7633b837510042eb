# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""``backward`` and ``torch.autograd.grad``: grad_outputs, inputs, create_graph, allow_unused,
retain_graph, several roots, accumulation into ``.grad`` (see conftest.py for how they are
adapted)."""

from __future__ import annotations

import pytest

from differential import same


def grad_of(x):
    """``x.grad`` copied: its ``_version`` is an engine artefact (tests/engine/engine_gradients.py)."""
    return None if x.grad is None else x.grad.clone()


def m55(t, scale=0.1, shift=0.0, requires_grad=False):
    """A fixed 5x5 float tensor in place of the original's ``randn(5, 5)``."""
    x = t.arange(25.0).reshape(5, 5) * scale + shift
    return x.requires_grad_(requires_grad)


@pytest.mark.xfail(
    strict=True,
    reason="bug: backward(create_graph=True) adds into the existing .grad in place (torch makes a "
    "new tensor) (issue 8 §2)",
)
def test_accumulate_grad() -> None:
    """TestAutograd.test_accumulate_grad: in place without create_graph, out of place with it."""

    def program(t):
        grad_output = t.ones(5, 5)
        out = []
        for create_graph in (False, True):
            x = m55(t, requires_grad=True)
            y = x + 2
            y.backward(grad_output, retain_graph=True)
            x_grad = x.grad
            x_grad_clone = x.grad.clone()
            y.backward(grad_output, create_graph=create_graph)
            out += [x_grad.clone(), x_grad_clone, x_grad is x.grad, grad_of(x)]
        return out

    # warnings=False: torch warns about backward(create_graph=True) once per process, so whether
    # it warns here depends on test order; test_backward_create_graph_warns checks that warning.
    r = same(program, warnings=False)
    assert (r[0].values == 2 * r[1].values).all() and r[2] is True
    assert (r[4].values == r[5].values).all() and r[6] is False


def test_sum_to_with_empty_dim_grad() -> None:
    """TestAutograd.test_sum_to_with_empty_dim_grad."""

    def program(t):
        a = t.ones(4, 0, requires_grad=True)
        b = t.ones(4, 1, requires_grad=True)
        c = a + b
        c.sum().backward()
        return [c.shape, grad_of(b), grad_of(a)]

    r = same(program)
    assert r[0] == (4, 0) and (r[1].values == 0).all() and r[2].shape == (4, 0)


def test_hessian_vector() -> None:
    """TestAutograd.test_hessian_vector: backward(create_graph=True), then backward of .grad."""

    def program(t):
        x = t.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        y = t.tensor([[1.5, 0.5], [-0.5, 3.0]], requires_grad=True)
        z = x**2 + y * x + y**2
        z.backward(t.ones(2, 2), create_graph=True)
        with t.no_grad():
            x_grad = 2 * x + y
            y_grad = x + 2 * y
        first = [x.grad.clone(), y.grad.clone(), x_grad, y_grad]
        grad_sum = 2 * x.grad + y.grad
        grad_sum.backward(t.ones(2, 2))
        return first + [grad_of(x), grad_of(y), grad_of(x) - x_grad, grad_of(y) - y_grad]

    r = same(program)
    assert (r[0].values == r[2].values).all() and (r[6].values == 5).all()
    assert (r[7].values == 4).all()


def test_grad() -> None:
    """TestAutograd.test_grad: autograd.grad with create_graph leaves .grad alone."""

    def program(t):
        x = t.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        y = t.tensor([[1.5, 0.5], [-0.5, 3.0]], requires_grad=True)
        z = x**2 + y * x + y**2
        z.backward(t.ones(2, 2), create_graph=True)
        x_grad = 2 * x + y
        y_grad = x + 2 * y
        grad_sum = 2 * x.grad + y.grad
        x_hv = t.autograd.grad(
            outputs=[grad_sum], grad_outputs=[t.ones(2, 2)], inputs=[x], create_graph=True
        )
        return [x_hv, grad_of(x), grad_of(y), x_grad, y_grad]

    r = same(program)
    assert (r[0][0].values == 5).all()
    assert (r[1].values == r[3].values).all() and (r[2].values == r[4].values).all()


def test_grad_shape_mismatch() -> None:
    """TestAutograd.test_grad, second half: grad_outputs of the wrong shape."""

    def program(t):
        x = t.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        grad_sum = 3 * x
        t.autograd.grad(outputs=[grad_sum], grad_outputs=[t.ones(2)], inputs=[x])

    r = same(program)
    assert r.message == (
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has "
        "a shape of torch.Size([2, 2])."
    )


@pytest.mark.xfail(
    strict=True,
    reason="bug: under create_graph=True two gradient contributions (x**2 + y*x) are summed in "
    "place into a buffer the new graph saved, so backward through the gradient raises a false "
    "'modified by an inplace operation' (issue 8 §2 family)",
)
def test_grad_nonleaf() -> None:
    """TestAutograd.test_grad_nonleaf: grad of a non-leaf with create_graph, five steps."""

    def program(t):
        x_init = t.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        x = x_init
        y = t.tensor([[1.5, 0.5], [-0.5, 3.0]], requires_grad=True)
        grad_output = t.ones(2, 2)

        def fn(x):
            return x**2 + y * x + y**2

        out = []
        for _ in range(5):
            (grad_x,) = t.autograd.grad(fn(x), x, grad_outputs=grad_output, create_graph=True)
            out += [grad_x, y.grad is None, x.grad is None, grad_x - (2 * x + y)]
            x = x + 0.05 * grad_x
        val_init = fn(x_init).sum()
        val_final = fn(x).sum()
        x.backward(grad_output)
        return out + [val_init, val_final, grad_of(y), grad_of(x_init)]

    r = same(program)
    assert all(r[i] is True for i in range(1, 20, 4) for i in (i, i + 1))
    assert r[-3].values > r[-4].values


def test_sharded_grad() -> None:
    """TestAutograd.test_sharded_grad: grad w.r.t. groups of intermediates, then backward."""

    def program(t):
        leaves = [t.full((2, 2), 0.1 * i, requires_grad=True) for i in range(10)]
        intermediates = [leaf * i + leaf * leaf for i, leaf in enumerate(leaves)]
        loss = sum(v * i for i, v in enumerate(intermediates)).sum()
        groups = [intermediates[i : i + 2] for i in range(0, 10, 2)]
        d_intermediates = [d for batch in groups for d in t.autograd.grad(loss, batch)]
        t.autograd.backward(intermediates, d_intermediates)
        return [grad_of(leaf) for leaf in leaves]

    r = same(program)
    assert abs(r[3].values[0, 0] - 3 * (3 + 2 * 0.3)) < 1e-5  # i * (i + 2 l), l = 0.1 i


def test_backward_badcalls() -> None:
    """TestAutograd.test_backward_badcalls."""

    def program(t):
        t.ones(1).backward()

    assert same(program).message.startswith("element 0 of tensors does not require grad")


def test_grad_badcalls() -> None:
    """TestAutograd.test_grad_badcalls."""

    def program(t):
        x = t.ones(1)
        y = x**2
        errors = []
        for outputs, inputs in ((x, y), (y, x)):
            try:
                t.autograd.grad(outputs, inputs)
            except RuntimeError as e:
                errors.append(str(e))
        x = t.ones(1, requires_grad=True)
        y = x**2
        return errors + [t.autograd.grad(y, x)]

    r = same(program)
    assert all("does not require grad" in e for e in r[:2])


def test_grad_unreachable() -> None:
    """TestAutograd.test_grad_unreachable: allow_unused gives None; without it, an error."""

    def program(t):
        x = t.ones(1, requires_grad=True)
        y = t.ones(1, requires_grad=True)
        z = x * 2
        w = y * 2
        grad_x, grad_y = t.autograd.grad(x * 2, [x, y], allow_unused=True)
        z = t.ones(1, requires_grad=True)
        grad_x2, grad_z = t.autograd.grad(x * 2, [x, z], allow_unused=True)
        try:
            t.autograd.grad(x * 2, [x, y], allow_unused=False)
        except RuntimeError as e:
            error = str(e)
        return [grad_x, grad_y, grad_x2, grad_z, w, error]

    r = same(program)
    assert r[1] is None and r[3] is None and "Set allow_unused=True" in r[5]


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

    r = same(program, rtol=1e-4, atol=1e-4)
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


@pytest.mark.xfail(
    strict=True,
    reason="bug: autograd.backward([z, q]) runs one backward per root, so the error names "
    "'element 0' where torch names 'element 1'",
)
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


@pytest.mark.xfail(
    strict=True,
    reason="bug: IndexBackward0/IndexPutBackward0 are not freed by backward, so a second "
    "backward without retain_graph succeeds instead of raising torch's error",
)
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


@pytest.mark.xfail(
    strict=True,
    reason="gap: Tensor.repeat",
)
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
