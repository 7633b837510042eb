# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""``backward`` and ``torch.autograd.grad``: grad_outputs, inputs, create_graph, allow_unused,
retain_graph, several roots, accumulation into ``.grad`` (see conftest.py for how they are
adapted)."""

from __future__ import annotations

from support.differential import grad_of, same


def m55(t, scale=0.1, shift=0.0, requires_grad=False):
    """A fixed 5x5 float tensor in place of the original's ``randn(5, 5)``."""
    x = t.arange(25.0).reshape(5, 5) * scale + shift
    return x.requires_grad_(requires_grad)


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
        return [*first, grad_of(x), grad_of(y), grad_of(x) - x_grad, grad_of(y) - y_grad]

    # warnings=False: torch's create_graph warning comes once per process (see above).
    r = same(program, warnings=False)
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

    # warnings=False: torch's create_graph warning comes once per process (see above).
    r = same(program, warnings=False)
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
        return [*out, val_init, val_final, grad_of(y), grad_of(x_init)]

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
        return [*errors, t.autograd.grad(y, x)]

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
