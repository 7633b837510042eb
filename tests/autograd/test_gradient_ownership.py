"""The backward pass never writes into a gradient buffer it does not own.

torch's rule: the engine sums a gradient in place only into a buffer nobody else can see (its
input buffers check that they hold the last reference to the tensor and to its storage), and
AccumulateGrad steals an incoming gradient only when nobody else holds it; otherwise it
allocates. A caller's ``gradient``/``grad_outputs`` tensor is therefore never written, and every
``.grad`` here has the values and the ``_version`` torch gives.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import ownership

from support.differential import same


def test_a_callers_gradient_that_reaches_two_branches_is_not_summed_into() -> None:
    """PyTorch's test_autograd found it: ``go`` reached ``y`` directly and through ``x/2 + y/8``."""

    def program(t):
        x = t.ones(5, 5, requires_grad=True)
        y = t.ones(5, 5, requires_grad=True)
        z = (x / 2 + y / 8) + y
        go = t.ones(5, 5)
        z.backward(go)
        return [x.grad, y.grad, go, go._version]

    r = same(program)
    assert r[3] == 0 and r[2].values.tolist() == [[1.0] * 5] * 5


@pytest.mark.parametrize("op", ["add0", "mul1", "view", "neg_neg", "sub0", "t_t"])
def test_a_gradient_passed_through_unchanged_is_copied_or_aliased_as_torch_does(op: str) -> None:
    """Whether ``.grad`` shares the caller's memory (and its version) is torch's choice, case by case."""

    def program(t):
        x = t.ones(2, 2, requires_grad=True)
        go = t.full((2, 2), 3.0)
        y = {
            "add0": lambda: x + 0,
            "mul1": lambda: x * 1,
            "view": lambda: x.view(4).view(2, 2),
            "neg_neg": lambda: x.neg().neg(),
            "sub0": lambda: x - 0,
            "t_t": lambda: x.t().t(),
        }[op]()
        y.backward(go)
        shares = x.grad.data_ptr() == go.data_ptr()
        go.add_(1)  # the caller's tensor is the caller's: a later write must not reach .grad
        return [x.grad, shares, go._version]

    same(program)


def test_a_gradient_used_twice_is_summed_out_of_place() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        (x + x).sum().backward()
        a = x.grad
        w = t.ones(3, requires_grad=True)
        (w * 2 + w * 3).sum().backward()  # the first contribution is private: summed in place
        b = w.grad
        u = t.ones(3, requires_grad=True)
        v = u * 2
        (v + v + v).sum().backward()
        return [a, b, u.grad]

    same(program)


def test_a_private_gradient_laid_out_with_a_size_one_dims_stride_is_summed_in_place() -> None:
    """Fuzz seed 96218: each product's gradient is laid out by the iterator as ``t2`` is,
    strides ``(3, 3, 1)`` for shape ``(1, 2, 3)`` (a size-1 dim's stride that numpy does not
    give); the input buffer sums the second into the first in place, so that layout reaches the
    leaf (an out-of-place sum of two contiguous tensors would be row-major, ``(6, 3, 1)``)."""

    def program(t):
        x = t.zeros((2, 1, 3), requires_grad=True)
        y = x.swapaxes(0, 1)
        seen = []
        y.register_hook(lambda g: seen.append((g.stride(), g._version)))
        (y * y).sum().backward(retain_graph=True)
        first = (x.grad.stride(), x.grad._version)
        (y * y).sum().backward()
        return [x.grad, first, x.grad.stride(), x.grad._version, seen]

    same(program)


def test_gradients_summed_for_an_inner_node_keep_the_callers_tensor() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        go = t.ones(3)
        out = h + h.exp() + h
        out.backward(go)
        return [x.grad, go, go._version]

    same(program)


def test_autograd_grad_leaves_grad_outputs_alone() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 2
        go = t.ones(3)
        (g,) = t.autograd.grad(y + y + y, x, go)
        return [g, go, go._version]

    same(program)


def test_grad_outputs_reused_with_create_graph_raise_no_version_error() -> None:
    """A gradient summed into the caller's tensor would bump it and trip the next backward."""

    def program(t):
        x = t.ones(3, requires_grad=True)
        go = t.ones(3)
        y = x * x
        (g1,) = t.autograd.grad(y + y, x, go, create_graph=True)
        (g2,) = t.autograd.grad(y * 3 + y, x, go, create_graph=True)
        (gg,) = t.autograd.grad((g1 * g2).sum(), x)
        return [g1, g2, gg, go._version]

    same(program)


def test_backward_with_create_graph_into_an_existing_grad_makes_a_new_tensor() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        (x * x).sum().backward()
        old = x.grad
        before = old._version
        (x * x * x).sum().backward(create_graph=True)
        new = x.grad
        return [old, before, old._version, new is old, new]

    same(program, warnings=False)  # torch warns that create_graph makes a reference cycle


def test_accumulation_without_create_graph_stays_in_place() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        g = x.grad
        (x * x + x).sum().backward()
        return [g is x.grad, g, g._version]

    same(program)


def test_a_grad_set_by_hand_is_accumulated_into_in_place_as_in_torch() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        mine = t.full((3,), 10.0)
        x.grad = mine
        (x * 2).sum().backward()
        return [mine, mine._version, x.grad is mine]

    same(program)


def test_retained_grads_and_leaf_grads_do_not_alias() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 1
        y.retain_grad()
        go = t.ones(3)
        (y + 0).backward(go)
        y.grad.add_(5)
        return [x.grad, y.grad, go]

    same(program)


@pytest.mark.parametrize("inference", [False, True], ids=["grad", "inference_mode"])
def test_a_retained_grad_is_a_row_major_copy(inference: bool) -> None:
    """torch's retain_grad hook clones the first gradient with ``contiguous_format``, whatever
    the gradient's layout (fuzz seed 346158: ``(2, 1)``, not the permuted ``(1, 3)``); later
    ones are added out of place."""

    def program(t):
        x = t.zeros((2, 3), requires_grad=True)
        y = x.permute(1, 0)
        y.retain_grad()
        seen = []
        y.register_hook(lambda g: seen.append(g.stride()))
        with t.inference_mode(inference):
            y.sigmoid().sum().backward(retain_graph=True)
        first = [y.grad.stride(), y.grad.is_contiguous()]
        (y * y.detach()).sum().backward()
        return [y.grad, first, y.grad.stride(), seen, x.grad.stride()]

    same(program)


def test_backward_with_inputs_leaves_the_callers_gradient_alone() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        w = t.ones(3, requires_grad=True)
        go = t.ones(3)
        (x + w + x).backward(go, inputs=[x])
        return [x.grad, w.grad, go, go._version]

    same(program)


def _backward_many_times(leaf: ownership.Tensor, steps: int) -> None:
    for _ in range(steps):
        (leaf * 1.0).sum().backward()


def test_concurrent_backward_into_a_shared_leaf_loses_no_update() -> None:
    """torch holds a lock in AccumulateGrad: two threads x 50 backward passes give exactly 100."""
    leaf = ownership.zeros(1_000_000, requires_grad=True)
    (leaf * 1.0).sum().backward()  # .grad exists: every later pass adds into it in place
    threads = [threading.Thread(target=_backward_many_times, args=(leaf, 50)) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert leaf.grad is not None
    np.testing.assert_array_equal(leaf.grad.numpy(), np.full(1_000_000, 101.0, np.float32))


def test_backward_inputs_may_name_a_non_leaf_which_then_retains_its_grad() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 2
        z = (y * y).sum()
        z.backward(inputs=[y], retain_graph=True)
        first = [y.grad, x.grad, y.retains_grad]
        z.backward(inputs=y)  # a single tensor, not a list
        return [*first, y.grad, x.grad]

    same(program)


def test_backward_inputs_may_be_a_0d_tensor_and_must_not_be_empty() -> None:
    def program(t):
        s = t.tensor(2.0, requires_grad=True)
        u = t.ones(2, requires_grad=True)
        w = s * s
        w.backward(inputs=s, retain_graph=True)
        w.backward(inputs=(s, u), retain_graph=True)  # u is unused: its .grad stays None
        t.autograd.backward(w, inputs=s, retain_graph=True)
        try:
            w.backward(inputs=[])
        except RuntimeError as e:
            return [s.grad, u.grad, str(e)]
        return None

    same(program)


def test_backward_inputs_that_do_not_require_grad_are_refused() -> None:
    def program(t):
        s = t.tensor(2.0, requires_grad=True)
        (s * s).backward(inputs=[t.ones(2)])

    same(program)


def _identity_function(t: Any) -> Any:
    class Identity(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g  # hands the incoming buffer on

    return Identity


def _returns_saved(t: Any) -> Any:
    class ReturnsSaved(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(t.full(x.shape, 2.0))
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (c,) = ctx.saved_tensors
            return c  # a tensor the Function still holds

    return ReturnsSaved


ROUTES: dict[str, Any] = {
    "function_passing_the_gradient_on": lambda t, x: _identity_function(t).apply(x),
    "two_functions_passing_it_on": lambda t, x: (
        _identity_function(t).apply(x) + _identity_function(t).apply(x)
    ),
    "function_returning_a_saved_tensor": lambda t, x: _returns_saved(t).apply(x),
    "two_functions_returning_saved_tensors": lambda t, x: (
        _returns_saved(t).apply(x) + _returns_saved(t).apply(x)
    ),
    "expand": lambda t, x: x.sum() * t.ones(4),
    "sum_of_an_expand": lambda t, x: x.unsqueeze(0).expand(3, 4).sum(0),
    "mm": lambda t, x: (x.reshape(2, 2) @ t.eye(2)).reshape(4),
    "clone": lambda t, x: x.clone(),
    "transposes": lambda t, x: x.reshape(2, 2).t().contiguous().t().reshape(4),
    "three_uses": lambda t, x: x + x + x,
    "in_place_chain": lambda t, x: (x * 1).add_(1),
    "relu": lambda t, x: x.relu(),
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_grad_values_versions_and_the_callers_tensor_by_route(route: str) -> None:
    def program(t):
        x = t.tensor([1.0, -2.0, 3.0, 0.5], requires_grad=True)
        go = t.full((4,), 2.0)
        ROUTES[route](t, x).backward(go)
        return [x.grad, x.grad.data_ptr() == go.data_ptr(), go, go._version]

    same(program)


@pytest.mark.parametrize("create_graph", [False, True])
def test_accumulation_into_a_grad_set_by_hand(create_graph: bool) -> None:
    def program(t):
        x = t.tensor([1.0, -2.0], requires_grad=True)
        mine = t.zeros(2)
        x.grad = mine
        go = t.full((2,), 2.0)
        (x * 2).backward(go, create_graph=create_graph)
        return [x.grad, x.grad is mine, mine, go._version]

    same(program, warnings=False)  # torch warns that create_graph makes a reference cycle
