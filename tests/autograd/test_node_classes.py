"""A node is of a class named as torch names it, whichever way the user reaches it.

torch gives each node kind its own class: ``type(y.grad_fn).__name__`` is ``MulBackward0``, an
unknown attribute's AttributeError names it, and a custom Function's nodes are of a class
``<Function>Backward``. The engine records plain ``OpNode``s (a class without an attribute hook,
whose reads CPython specializes) and gives a node its named class when it is shown
(``autograd.node.shown``): these tests reach nodes by ``grad_fn``, ``next_functions`` and graphs
walked after a backward, and check that the engine runs a shown node exactly as an unshown one.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def _class_facts(fn: Any) -> list[Any]:
    """What a learner sees of a node's class: its name, the name it repeats, and the error an
    unknown attribute gives."""
    try:
        fn.no_such_attribute  # the error is the fact
    except AttributeError as e:
        error = str(e)
    else:
        error = None
    return [type(fn).__name__, type(fn).__qualname__, fn.name(), error]


def _walk(fn: Any, seen: list[Any]) -> list[Any]:
    """Every node below ``fn`` (itself first), by ``next_functions``, each once."""
    if fn is None or any(fn is s for s in seen):
        return seen
    seen.append(fn)
    for nxt, _ in fn.next_functions:
        _walk(nxt, seen)
    return seen


def graphs(t: ModuleType) -> dict[str, Any]:
    """Graphs with nodes of every kind: ops by tensor and number, reductions, views, a view
    written in place (``CopySlices``), multi-output views, losses, in-place ops, leaves."""
    x = t.tensor([0.5, 1.0, 2.0], requires_grad=True)
    m = t.ones(3, 3, requires_grad=True)
    f = t.nn.functional
    written = m * 1
    written[1:].mul_(2)
    return {
        "arithmetic": ((x * 2 + x) / 3 - x**2).exp().sum(),
        "matrix": (m @ m.t()).relu().mean(1),
        "views": m.view(9)[2:].unsqueeze(0).expand(2, 7),
        "written view": written,
        "unbind": m.unbind(1)[2] * x,
        "loss": f.cross_entropy(m * x, t.tensor([0, 2, 1])),
        "in place": x.clone().add_(x, alpha=2).tanh_(),
        "softmax": (m.softmax(0) * m.log_softmax(1)).max(0)[0],
    }


def test_every_node_reached_is_of_a_class_named_as_torchs() -> None:
    def program(t: ModuleType) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            made = graphs(t)
        return {key: [_class_facts(n) for n in _walk(y.grad_fn, [])] for key, y in made.items()}

    same(program)


def test_a_custom_functions_node_is_of_a_class_named_after_it() -> None:
    def program(t: ModuleType) -> Any:
        class Double(t.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

        class Twice(Double):
            pass

        x = t.ones(3, requires_grad=True)
        y, z = Double.apply(x), Twice.apply(x)
        return [
            _class_facts(y.grad_fn),
            _class_facts(z.grad_fn),
            type(y.grad_fn) is type(Double.apply(x).grad_fn),
            type(y.grad_fn) is type(z.grad_fn),
        ]

    same(program)


def test_the_node_is_one_object_and_next_functions_a_new_tuple_at_each_read() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(3, requires_grad=True)
        y = (x * 2).sin()
        fn = y.grad_fn
        return [
            fn is y.grad_fn,
            fn.next_functions is fn.next_functions,
            fn.next_functions == fn.next_functions,
            fn.next_functions[0][0] is fn.next_functions[0][0],
            type(fn.next_functions),
        ]

    same(program)


def _shown_everywhere(y: Any) -> Any:
    """Show every node of ``y``'s graph (a learner who walked it), then return ``y``."""
    _walk(y.grad_fn, [])
    return y


@pytest.mark.parametrize("shown", [False, True], ids=["unseen", "walked"])
def test_a_graph_whose_nodes_were_shown_runs_as_one_whose_were_not(shown: bool) -> None:
    """A shown node keeps its saved values, their checks and its backward: the gradients, the
    freed-graph error and the version error are torch's either way."""

    def program(t: ModuleType) -> Any:
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        w = t.tensor([1.5, 2.0, -0.5], requires_grad=True)
        loss = (x * w).sigmoid().log_softmax(0).sum()
        if shown:
            _shown_everywhere(loss)
        loss.backward(retain_graph=True)
        first = [x.grad.clone(), w.grad.clone()]
        loss.backward()
        try:
            loss.backward()
        except RuntimeError as e:
            freed = str(e)
        h = (x * 3).exp()
        if shown:
            _shown_everywhere(h)
        h.mul_(2)
        try:
            h.sum().backward()
        except RuntimeError as e:
            stale = str(e)
        return [first, x.grad, w.grad, freed, stale]

    same(program)


def test_the_engine_keeps_its_nodes_unshown_until_a_user_reaches_them() -> None:
    """Recording and backward never switch a node's class: only a read by the user does."""
    import ownership
    from ownership.core.autograd.node import OpNode
    from ownership.ops.named_nodes import NamedNode

    x = ownership.ones(3, requires_grad=True)
    y = (x * 2).sin()
    y.sum().backward(retain_graph=True)
    assert type(y._grad_fn) is OpNode
    assert isinstance(y.grad_fn, NamedNode) and type(y._grad_fn).__name__ == "SinBackward0"
    below = y._grad_fn._edges[0][0]
    assert type(below) is OpNode  # not shown yet: nobody read it
    assert type(y.grad_fn.next_functions[0][0]) is not OpNode


def test_a_custom_functions_ctx_is_its_node() -> None:
    """torch's ctx is the node: what forward sets on it, its saved tensors (checked as backward
    checks them) and ``needs_input_grad`` are read from ``grad_fn``."""

    def program(t: ModuleType) -> Any:
        ctxs: list[Any] = []

        class Scale(t.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, k: float) -> Any:
                ctx.k = k
                ctx.save_for_backward(x)
                ctxs.append(ctx)
                return x * k

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (x,) = ctx.saved_tensors
                return g * ctx.k + x * 0, None

        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = Scale.apply(x, 3.0)
        fn = y.grad_fn
        facts = [
            ctxs[0] is fn,
            isinstance(fn, t.autograd.function.FunctionCtx),
            fn.k,
            fn.saved_tensors,
            fn.needs_input_grad,
        ]
        with t.no_grad():
            Scale.apply(x, 2.0)
        facts.append(type(ctxs[1]).__name__)
        z = x.detach().requires_grad_()
        w = Scale.apply(z, 2.0)
        with t.no_grad():
            z.mul_(2)
        try:
            w.grad_fn.saved_tensors
        except RuntimeError as e:
            facts.append(str(e))
        y.sum().backward()
        facts.append(x.grad)
        try:
            fn.saved_tensors
        except RuntimeError as e:
            facts.append(str(e))
        return facts

    same(program)


NODE_CALLS = {
    "mul, one gradient": lambda t, y, a: y.grad_fn(t.ones(2)),
    "mul, none": lambda t, y, a: y.grad_fn(),
    "mul, two": lambda t, y, a: y.grad_fn(t.ones(2), t.ones(2)),
    "mul, an undefined gradient": lambda t, y, a: y.grad_fn(None),
    "split, one of two": lambda t, y, a: (a * 1).split(1)[0].grad_fn(t.ones(1)),
    "split, two": lambda t, y, a: (a * 1).split(1)[0].grad_fn(t.ones(1), t.ones(1)),
    "accumulator": lambda t, y, a: (y.grad_fn.next_functions[0][0](t.ones(2)), a.grad),
    "accumulator, two": lambda t, y, a: y.grad_fn.next_functions[0][0](t.ones(2), t.ones(2)),
    "accumulator, twice": lambda t, y, a: (
        [y.grad_fn.next_functions[0][0](t.full((2,), 0.5)) for _ in range(2)] + [a.grad]
    ),
}


@pytest.mark.parametrize("call", NODE_CALLS, ids=list(NODE_CALLS))
def test_calling_a_node_takes_one_gradient_per_output(call: str) -> None:
    def program(t: ModuleType) -> Any:
        a = t.tensor([1.0, 2.0], requires_grad=True)
        return NODE_CALLS[call](t, a * 3, a)

    same(program)


def test_a_custom_functions_node_is_not_callable() -> None:
    def program(t: ModuleType) -> Any:
        class Double(t.autograd.Function):  # type: ignore[name-defined, misc]
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

        y = Double.apply(t.ones(2, requires_grad=True))
        return y.grad_fn(t.ones(2))

    same(program)
