# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""``backward(inputs=...)``, ``grad`` of non-leaves, ``retain_grad`` and tensor hooks around
in-place ops (see conftest.py for how the tests are adapted)."""

from __future__ import annotations

import gc
import weakref

from support.differential import grad_of, same


def xy(t, dtype=None):
    """The fixed 2x2 pair that replaces the original's two ``randn(2, 2)``."""
    x = t.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=dtype, requires_grad=True)
    y = t.tensor([[1.5, 0.5], [-0.5, 3.0]], dtype=dtype, requires_grad=True)
    return x, y


def test_grad_empty_inputs() -> None:
    """TestAutograd.test_grad_empty_inputs."""

    def program(t):
        x = t.tensor([1.0], requires_grad=True)
        t.autograd.grad(2 * x, [], grad_outputs=t.tensor([1.0]))

    # The original expects "grad requires non-empty inputs."; torch 2.13 words it differently.
    assert "cannot be empty" in same(program).message


def test_grad_unreachable_discovery() -> None:
    """TestAutograd.test_grad_unreachable_discovery: unreachable nodes are never run."""

    def program(t):
        ran = []

        class MyFunc(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, x):
                ran.append("should not run")
                return x

        x = MyFunc.apply(t.ones(1, requires_grad=True) * 2)
        y = t.ones(1, requires_grad=True)
        (g_y,) = t.autograd.grad(x, (y,), allow_unused=True)
        x = MyFunc.apply(t.ones(1, requires_grad=True) * 2)
        z = t.ones(1, requires_grad=True)
        g_y2, g_z = t.autograd.grad(x + z, (y, z), allow_unused=True)
        x = MyFunc.apply(t.ones(1, requires_grad=True) * 2)
        t.autograd.backward(x, inputs=(y,))
        return [g_y, g_y2, g_z, y.grad, ran]

    r = same(program)
    assert r[0] is None and r[1] is None and r[3] is None and r[4] == []


def test_backward_with_inputs() -> None:
    """TestAutograd.test_backward_with_inputs: only the inputs named get a gradient."""

    def program(t):
        x, y = xy(t, t.double)

        def fn():
            return x**2 + y * x + y**2

        gradient = t.ones(2, 2)
        out = []

        @t.no_grad()
        def reset_grad():
            x.grad.zero_()
            y.grad.zero_()

        t.autograd.backward(fn(), gradient, inputs=[x, y])
        out += [grad_of(x), grad_of(y)]
        for inputs in ([x], [y], y):
            reset_grad()
            t.autograd.backward(fn(), gradient, inputs=inputs)
            out += [grad_of(x), grad_of(y)]
        reset_grad()
        try:
            t.autograd.backward(fn(), gradient, inputs=[])
        except RuntimeError as e:
            out.append(str(e))
        return out

    r = same(program)
    assert (r[3].values == 0).all() and (r[4].values == 0).all() and "cannot be empty" in r[-1]


def test_backward_with_scalar_input() -> None:
    """TestAutograd.test_backward_with_scalar_input: ``inputs`` a single 0-d tensor."""

    def program(t):
        x = t.tensor(1.5, dtype=t.double, requires_grad=True)
        out = x**2
        out.backward(inputs=x)
        return grad_of(x)

    assert same(program).values == 3.0


def test_backward_with_nonleaf_inputs() -> None:
    """TestAutograd.test_backward_with_nonleaf_inputs: a non-leaf in ``inputs`` gets .grad."""

    def program(t):
        x, y = xy(t, t.double)
        x_nonleaf = x * 1
        z = t.zeros(2, 2, dtype=t.double, requires_grad=True)
        out = x_nonleaf**2 + y * x_nonleaf + y**2
        out.backward(t.ones(2, 2, dtype=t.double), create_graph=True, inputs=[x, y, x_nonleaf])
        grads = [grad_of(y), grad_of(x), grad_of(x_nonleaf), 2 * x_nonleaf + y]
        out.backward(t.ones(2, 2, dtype=t.double), create_graph=True, inputs=[z])
        return [*grads, z.grad]

    # warnings=False: torch warns about backward(create_graph=True) once per process, so whether
    # it warns here depends on test order; test_backward_create_graph_warns checks that warning.
    r = same(program, warnings=False)
    assert (r[2].values == r[3].values).all() and r[4] is None


def test_backward_create_graph_warns() -> None:
    """TestAutograd.test_backward_create_graph_warns: backward warns, autograd.grad does not."""

    def program(t):
        t.set_warn_always(True)
        try:
            b = t.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=t.double)
            c = b * b
            c.backward(t.ones_like(c), create_graph=True)
            b.grad = None
        finally:
            t.set_warn_always(False)
        return c

    same(program)


def test_backward_create_graph_warns_not_for_grad() -> None:
    """TestAutograd.test_backward_create_graph_warns, second half: ``grad`` never warns."""

    def program(t):
        b = t.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=t.double)
        c = b * b
        return t.autograd.grad(c, b, t.ones_like(c), create_graph=True)

    same(program)


def test_grad_nonleaf_many_outputs() -> None:
    """TestAutograd.test_grad_nonleaf_many_outputs: grad w.r.t. two chunks; x's hook not run."""

    def program(t):
        x = t.arange(8.0).reshape(4, 2).requires_grad_()
        a, b = x.chunk(2)
        hook_called = [False]

        def hook(*grads):
            hook_called[0] = True

        x.register_hook(hook)
        go = t.tensor([[1.0, -2.0], [0.5, 3.0]])
        grad_a, grad_b = t.autograd.grad((a + 2 * b), [a, b], grad_outputs=go, create_graph=True)
        return [grad_a, grad_b, hook_called[0], x.grad]

    r = same(program)
    assert r[2] is False and r[3] is None


def test_grad_nonleaf_register_hook() -> None:
    """TestAutograd.test_grad_nonleaf_register_hook: a hook on one output of unbind."""

    def program(t):
        x = t.arange(5.0, requires_grad=True)
        x_list = x.unbind()
        hook_results = []
        x_list[0].register_hook(hook_results.append)
        x_list[0].backward()
        out = [hook_results[:], grad_of(x), x_list[0].grad]
        for i in range(1, 5):
            x_list[i].backward()
            out += [hook_results[i], grad_of(x), x_list[i].grad]
        return out

    r = same(program)
    assert r[-2].values.tolist() == [1, 1, 1, 1, 1] and r[-3] is None


def test_hooks() -> None:
    """TestAutograd.test_hooks: counting hooks, removal, and hooks that change the gradient."""

    def program(t):
        x = t.ones(5, 5, requires_grad=True)
        y = t.ones(5, 5) * 4
        y.requires_grad_(True)
        counter = [0]

        def bw_hook(inc, grad):
            counter[0] += inc

        z = x**2 + x * 2 + x * y + y
        x.register_hook(lambda *args: bw_hook(0, *args))
        test = z.register_hook(lambda *args: bw_hook(1, *args))
        z.backward(t.ones(5, 5), retain_graph=True)
        counts = [counter[0]]
        test2 = z.register_hook(lambda *args: bw_hook(2, *args))
        z.backward(t.ones(5, 5), retain_graph=True)
        counts.append(counter[0])
        test2.remove()
        z.backward(t.ones(5, 5), retain_graph=True)
        counts.append(counter[0])
        test.remove()
        z.register_hook(lambda grad: grad.mul(2))
        with t.no_grad():
            y.grad.zero_()
        z.backward(t.ones(5, 5), retain_graph=True)
        first = grad_of(y)
        y.register_hook(lambda grad: grad.mul(2))
        with t.no_grad():
            y.grad.zero_()
        z.backward(t.ones(5, 5))
        return [counts, first, grad_of(y)]

    r = same(program)
    assert r[0] == [1, 4, 5] and (r[1].values == 4).all() and (r[2].values == 8).all()


def test_hook_with_no_name() -> None:
    """TestAutograd.test_hook_with_no_name: a callable object without ``__name__``."""

    def program(t):
        class MyHookClass:
            def __call__(self, grad):
                return grad.clone()

        x = t.ones(5, requires_grad=True).clone()
        x.register_hook(MyHookClass())
        x.sum().backward()
        return x

    same(program)


def test_retain_grad() -> None:
    """TestAutograd.test_retain_grad: retained grads accumulate; a no-op on leaves."""

    def program(t):
        inp = t.tensor([[0.2, 0.4, 0.6]], requires_grad=True)
        h1 = inp * 3
        out = (h1 * h1).sum()
        h1.retain_grad()
        h1.retain_grad()
        out.backward(retain_graph=True)
        first = [grad_of(h1), h1 * 2]
        out.backward(retain_graph=True)
        second = [grad_of(h1), h1 * 4]
        with t.no_grad():
            inp.grad.zero_()
        inp.retain_grad()
        inp.retain_grad()
        out.backward()
        return first + second + [grad_of(inp), inp * 18]

    r = same(program)
    assert all(abs(r[i].values - r[i + 1].values).max() < 1e-5 for i in (0, 2, 4))


def test_retain_grad_inplace() -> None:
    """TestAutograd.test_retain_grad_inplace: the retained grad is of the latest version."""

    def program(t):
        out = []
        for times in (1, 2):
            a = t.tensor([1.0], requires_grad=True).clone()
            a.retain_grad()
            for _ in range(times):
                a.mul_(2)
            a.sum().backward()
            out.append(grad_of(a))
        x = t.tensor([1.0], requires_grad=True).clone()
        x.retain_grad()
        x_view = x[:]
        x_view *= 2
        x *= 2
        x.sum().backward()
        out.append(grad_of(x))
        x = t.zeros(4)
        y = x.view(2, 2)
        y.add_(t.ones(2, 2, requires_grad=True))
        return [*out, x]

    r = same(program)
    assert [g.values.tolist() for g in r[:3]] == [[1.0]] * 3


def test_retain_grad_inplace_over_view() -> None:
    """TestAutograd.test_retain_grad_inplace_over_view: the retain hooks follow CopySlices."""

    def program(t):
        base = t.tensor([1.0], requires_grad=True).clone()
        view = base[:]
        view2 = base[:]
        view.retain_grad()
        view2.retain_grad()
        view.mul_(2)
        (view + view2).sum().backward()
        return [grad_of(view), grad_of(view2)]

    r = same(program)
    assert r[0].values.tolist() == [1.0] == r[1].values.tolist()


def test_retain_grad_cycle() -> None:
    """TestAutograd.test_retain_grad_cycle: retain_grad does not keep the tensor alive."""

    def program(t):
        x = t.ones(5, 5, requires_grad=True)

        def run_test():
            y = x * 2
            y.retain_grad()
            return y / 2, weakref.ref(y)

        gc.disable()  # freed by reference counting, as in torch, not by a lucky collection
        try:
            z, ref = run_test()
            expired = ref() is None
        finally:
            gc.enable()
        z.sum().backward()
        return [expired, grad_of(x)]

    assert same(program)[0] is True


def test_tensor_hooks_inplace() -> None:
    """TestAutograd.test_tensor_hooks_inplace: a hook registered after mul_ sees the new grad."""

    def program(t):
        seen = []

        def fn1(grad):
            seen.append(("fn1", grad.tolist()))
            return grad * 2

        def fn2(grad):
            seen.append(("fn2", grad.tolist()))
            return grad * 2

        a = t.tensor([1.0], requires_grad=True)
        b = a.clone()
        b.register_hook(fn1)
        b.mul_(2)
        b.register_hook(fn2)
        b.sum().backward()
        first = grad_of(a)
        a = t.tensor([1.0], requires_grad=True)
        b = a.clone()
        b.register_hook(fn1)
        b.mul_(2)
        b.mul_(2)
        b.sum().backward()
        return [seen, first, grad_of(a)]

    r = same(program)
    assert r[0][:2] == [("fn2", [1.0]), ("fn1", [4.0])] and r[1].values.tolist() == [8.0]
