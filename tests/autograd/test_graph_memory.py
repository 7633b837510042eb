"""Graphs are freed by reference counting, as in torch, not by the cyclic garbage collector.

An op that saves its own output (sigmoid, exp, tanh, relu, sqrt, softmax, log_softmax, ...) keeps
it as plain data, without its ``grad_fn``, as torch's ``SavedVariable`` does; the node is
re-attached on unpack. So no node refers to itself through a saved tensor, and with the cyclic
collector switched off a graph that is never backpropagated goes as soon as its last reference.
"""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import ownership

from support.differential import same


@pytest.fixture
def no_cyclic_gc() -> Iterator[None]:
    """Only reference counting frees objects while the test runs.

    What existed before the test is frozen (``gc.freeze``): a ``gc.collect()`` in the test then
    walks only the objects made since, so it finds the test's cycles without walking the whole
    heap of a worker that ran thousands of tests before (about a second per collection). Nothing
    is collected before the freeze, for the same reason: garbage left by earlier tests is frozen
    with the rest, counted by no collection in the test, and collected as usual once unfrozen."""
    was = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


OPS: dict[str, Callable[[Any, Any], Any]] = {
    "sigmoid": lambda t, x: x.sigmoid(),
    "exp": lambda t, x: x.exp(),
    "tanh": lambda t, x: t.tanh(x),
    "relu": lambda t, x: t.relu(x),
    "sqrt": lambda t, x: x.sqrt(),
    "softmax": lambda t, x: t.softmax(x, dim=1),
    "log_softmax": lambda t, x: t.log_softmax(x, dim=1),
    "pow_out": lambda t, x: t.nn.functional.relu(x) * 2,
    "in_place": lambda t, x: (x * 1).sigmoid_(),
    "in_place_view": lambda t, x: (x * 1)[0].exp_(),
    "pow": lambda t, x: x ** (x * 0 + 2),
    "max_all": lambda t, x: x.max(),
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_a_forward_never_backpropagated_is_freed_with_its_last_reference(
    op: str, no_cyclic_gc: None
) -> None:
    def program(t):
        x = t.rand(2, 3, requires_grad=True)
        h = x + 0.5
        y = OPS[op](t, h)
        z = y * 3
        refs = [weakref.ref(h), weakref.ref(y), weakref.ref(z)]
        del h, y, z
        return [r() is None for r in refs]

    assert same(program) == [True, True, True]


@pytest.mark.parametrize("op", sorted(OPS))
def test_the_node_of_a_dropped_output_is_freed(op: str, no_cyclic_gc: None) -> None:
    """The node itself (torch's nodes cannot be weakly referenced; ownership's can)."""
    y = OPS[op](ownership, ownership.rand(2, 3, requires_grad=True) + 0.5)
    node = weakref.ref(y.grad_fn)
    del y
    assert node() is None


def test_the_nodes_of_a_dropped_graph_are_freed(no_cyclic_gc: None) -> None:
    x = ownership.rand(4, 4, requires_grad=True)
    y = ownership.log_softmax(ownership.tanh(x.sigmoid().exp().sqrt()), dim=1).relu()
    nodes = []
    fn = y.grad_fn
    while fn is not None:
        nodes.append(weakref.ref(fn))
        fn = fn.next_functions[0][0] if fn.next_functions else None
    del fn, y
    assert len(nodes) >= 6
    assert [
        n() for n in nodes if n() is not None and n().name() != "torch::autograd::AccumulateGrad"
    ] == []


def test_an_eval_loop_without_no_grad_holds_one_steps_activations(no_cyclic_gc: None) -> None:
    """Six steps of a forward kept only as the last output: torch's peak is one step's graph."""

    def program(t):
        w = t.rand(64, 64, requires_grad=True)
        alive = []
        out = None
        for _ in range(6):
            h = (t.rand(256, 64) @ w).sigmoid()
            alive.append(weakref.ref(h))
            out = t.softmax(h.exp().tanh(), dim=1)
            del h
        return [sum(r() is not None for r in alive), out.shape]

    assert same(program)[0] == 0


class _Exp(ownership.autograd.Function):
    @staticmethod
    def forward(ctx: Any, i: Any) -> Any:
        r = i.exp()
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (r,) = ctx.saved_tensors
        return g * r


def test_a_custom_function_saving_its_output_is_freed_too(no_cyclic_gc: None) -> None:
    x = ownership.rand(3, requires_grad=True)
    y = _Exp.apply(x)
    wy, wn = weakref.ref(y), weakref.ref(y.grad_fn)
    del y
    assert wy() is None and wn() is None


def test_saved_outputs_still_backpropagate_and_name_their_node() -> None:
    def program(t):
        x = t.tensor([0.5, 1.0], requires_grad=True)
        y = x.sigmoid()
        a, b = y.grad_fn._saved_result, y.grad_fn._saved_result
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x)
        return [a, a is y, a is b, a.grad_fn is y.grad_fn, g.detach(), gg]

    same(program)


def test_the_peak_of_an_eval_loop_is_one_step(no_cyclic_gc: None) -> None:
    """Measured by tracemalloc (numpy reports its buffers to it): six steps of about 4 MB of
    activations each must peak near one step's worth, not six."""
    w = ownership.rand(256, 256, requires_grad=True)
    x = ownership.rand(1024, 256)
    tracemalloc.start()
    try:
        out = None
        for _ in range(6):
            out = ownership.softmax((x @ w).sigmoid().exp().tanh(), dim=1)
        del out
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    step = 1024 * 256 * 4 * 5  # five float32 activations of one step
    assert peak < 2.5 * step, f"peak {peak / 1e6:.1f} MB for steps of {step / 1e6:.1f} MB"


def _retained(t: Any) -> Any:
    x = t.ones(3, requires_grad=True)
    y = x * 3
    y.retain_grad()
    return y * 2


def _in_place_on_a_view(t: Any) -> Any:
    b = t.ones(2, 3, requires_grad=True) * 1
    b[0].exp_()
    return b.sum()


def _backpropagated(t: Any) -> Any:
    """(torch's optimizers make cycles of their own: not compared here.)"""
    m = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.Tanh())
    m(t.ones(1, 2)).sum().backward()
    return m


def _second_order(t: Any) -> Any:
    x = t.ones(3, requires_grad=True)
    return t.autograd.grad(x.sigmoid().sum(), x, create_graph=True)


GRAPHS: dict[str, Callable[[Any], Any]] = {
    "retain_grad": _retained,
    "in_place_on_a_view": _in_place_on_a_view,
    "linear": lambda t: t.nn.Linear(3, 2)(t.ones(4, 3)).sum(),
    "batchnorm": lambda t: t.nn.BatchNorm1d(3)(t.rand(4, 3)).sum(),
    "cross_entropy": lambda t: t.nn.functional.cross_entropy(
        t.rand(4, 3, requires_grad=True), t.tensor([0, 1, 2, 0])
    ),
    "views": lambda t: t.ones(2, 3, requires_grad=True).view(6).reshape(2, 3)[1].expand(2, 3),
    "create_graph": _second_order,
    "backpropagated_module": _backpropagated,
}


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_no_graph_leaves_a_cycle_for_the_collector(graph: str, no_cyclic_gc: None) -> None:
    """Whatever reference counting leaves behind is a cycle: there is none, as in torch."""

    def program(t):
        gc.collect()
        made = GRAPHS[graph](t)
        del made
        return gc.collect()

    assert same(program) == 0
