"""Hooks on graph nodes (``grad_fn.register_prehook``, ``grad_fn.register_hook``) against torch:
what they are given, what they may return, the order they run in beside tensor hooks,
``retain_grad`` and an ``AccumulateGrad``'s work, their handles, and torch's errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import grad_of, same


def test_the_order_of_every_hook_of_a_backward_pass() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        z = y.sin()
        acc = y.grad_fn.next_functions[0][0]
        # registered node hooks first, tensor hooks later: tensor hooks still run first
        y.grad_fn.register_prehook(lambda go: log.append(("node pre", go)))
        y.grad_fn.register_hook(lambda gi, go: log.append(("node post", gi, go)))
        acc.register_prehook(lambda go: log.append(("leaf node pre", go)))
        acc.register_hook(lambda gi, go: log.append(("leaf node post", gi, go, x.grad.clone())))
        y.register_hook(lambda g: log.append(("tensor", g)))
        y.retain_grad()
        x.register_hook(lambda g: log.append(("leaf tensor", g, x.grad)))
        x.register_post_accumulate_grad_hook(lambda v: log.append(("post accumulate", grad_of(v))))
        z.sum().backward()
        return log, y.grad, x.grad

    same(program)


def test_a_prehook_sees_the_retained_gradient_stored_and_may_replace_what_flows() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, -2.0, 0.5], requires_grad=True)
        y = x.exp()
        y.retain_grad()
        seen = []
        y.grad_fn.register_prehook(lambda go: seen.append(grad_of(y)))
        y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
        y.grad_fn.register_prehook(lambda go: seen.append(go[0].clone()))
        (y * y).sum().backward()
        return seen, y.grad, x.grad

    same(program)


def test_a_post_hook_may_replace_the_gradients_of_the_inputs() -> None:
    def program(t: ModuleType) -> Any:
        a = t.tensor([1.0, 2.0], requires_grad=True)
        b = t.tensor([3.0, -1.0], requires_grad=True)
        c = a * b
        given = []
        c.grad_fn.register_hook(lambda gi, go: given.append((gi, go)))
        c.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
        c.sum().backward()
        return given, a.grad, b.grad

    same(program)


def test_a_number_operand_and_an_unused_output_are_none() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        y = x * 3
        y.grad_fn.register_hook(lambda gi, go: seen.append(gi))
        a, _b = x.unbind()
        a.grad_fn.register_prehook(lambda go: seen.append(go))
        a.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)))
        (y.sum() + a * 2).backward()
        return seen, x.grad

    same(program)


def test_a_custom_functions_node_runs_its_hooks() -> None:
    def program(t: ModuleType) -> Any:
        class Double(t.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                return a * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = Double.apply(x)
        seen = []
        y.grad_fn.register_prehook(lambda go: seen.append(go))
        y.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10,))
        (y * y).sum().backward()
        return seen, x.grad, isinstance(y.grad_fn, t.autograd.graph.Node)

    same(program)


def test_a_leafs_accumulator_prehook_changes_what_is_accumulated() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        acc = y.grad_fn.next_functions[0][0]
        handle = acc.register_prehook(lambda go: (go[0] * 100,))
        y.sum().backward(retain_graph=True)
        first = grad_of(x)
        handle.remove()
        y.sum().backward()
        return first, x.grad, type(acc).__name__, acc.name()

    same(program)


def test_removed_node_hooks_no_longer_run() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.clone()
        calls = []
        pre = y.grad_fn.register_prehook(lambda go: calls.append("pre"))
        post = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2,))
        y.sum().backward(retain_graph=True)
        pre.remove()
        pre.remove()  # twice: nothing
        with post:
            pass
        y.sum().backward()
        return calls, x.grad

    same(program)


def test_autograd_grad_runs_no_node_it_does_not_need() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        z = y * y
        calls = []
        y.grad_fn.register_prehook(lambda go: calls.append("y pre"))
        y.grad_fn.register_hook(lambda gi, go: calls.append("y post"))
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: calls.append("acc pre"))
        acc.register_hook(lambda gi, go: calls.append("acc post"))
        gy = t.autograd.grad(z.sum(), y, retain_graph=True)
        calls.append("|")
        gx = t.autograd.grad(z.sum(), x, retain_graph=True)
        calls.append("|")
        calls.append("|")
        both = t.autograd.grad(z.sum(), [x, y], retain_graph=True)
        calls.append("|")
        z.sum().backward(inputs=[y])
        return calls, gy, gx, both, x.grad, y.grad

    same(program)


def test_an_input_nodes_saved_tensors_outlive_an_autograd_grad_that_did_not_run_it() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        z = y * y
        first = t.autograd.grad(z.sum(), y)  # the node of y is not run: nothing freed
        y.sum().backward()
        return first, x.grad

    same(program)


def _returns_two(gi: Any, go: Any) -> Any:
    return (gi[0], gi[0])


def _shrinks(gi: Any, go: Any) -> Any:
    return (gi[0][:1], None)


@pytest.mark.parametrize(
    "kind, hook",
    [
        ("post", _returns_two),
        ("post", _shrinks),
        ("post", lambda gi, go: gi[0]),
        ("post", lambda gi, go: (gi[0], gi[0])),  # the number operand's gradient was None
        ("post", lambda gi, go: (3, None)),
        ("post", lambda gi, go: (gi[0].double(), None)),
        ("pre", lambda go: (go[0].double(),)),
        ("pre", lambda go: 3),
        ("pre", lambda go: (3,)),
        ("pre", lambda go: [go[0]]),
        ("pre", lambda go: ()),
        ("pre", 3),  # not callable: found out when called, as in torch
    ],
)
def test_a_hook_that_returns_what_torch_refuses(kind: str, hook: Any) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        register = y.grad_fn.register_hook if kind == "post" else y.grad_fn.register_prehook
        register(hook)
        y.sum().backward()

    same(program)


def test_a_multi_output_nodes_prehook_cannot_invent_a_gradient() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a, _ = x.unbind()
        a.grad_fn.register_prehook(lambda go: (go[0], t.ones(())))
        (a * 2).backward()

    same(program)


def test_hooks_on_a_freed_graph_register_and_the_prehook_runs_before_the_error() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        y.sum().backward()
        calls = []
        y.grad_fn.register_prehook(lambda go: calls.append("pre"))
        y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
        try:
            y.sum().backward()
        except RuntimeError as e:
            calls.append(str(e)[:40])
        return calls

    same(program)


def test_sequence_numbers_grow_in_creation_order_and_a_leafs_is_the_largest() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        nodes = []
        a = x * 2
        b = a.exp()
        c = b[0]
        d = c.view(1)
        with t.no_grad():
            _ = x * 2  # no node, no number
        e = x.sum()
        nodes = [t_.grad_fn._sequence_nr() for t_ in (a, b, c, d, e)]
        acc = a.grad_fn.next_functions[0][0]
        return [n - nodes[0] for n in nodes], acc._sequence_nr()

    same(program)


def test_register_hook_dict_runs_a_tensors_hook_dict_on_the_node() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y._backward_hooks = {"times 100": lambda g: g * 100}
        y.grad_fn._register_hook_dict(y)
        y.sum().backward()
        return x.grad

    same(program)


def test_register_hook_dict_wants_a_tensor() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).grad_fn._register_hook_dict(3)

    same(program)


@pytest.mark.parametrize("kind", ["none", "pre keeps", "pre returns", "post keeps"])
def test_an_accumulators_hooks_and_whether_grad_steals_the_gradient(kind: str) -> None:
    """torch's AccumulateGrad expects its post hooks' own reference: the gradient is still
    stolen (same memory, version 0); a gradient a pre hook keeps is copied (version 1)."""

    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        acc = y.grad_fn.next_functions[0][0]
        seen: list[Any] = []
        if kind == "pre keeps":
            acc.register_prehook(lambda go: seen.append(go[0]))
        elif kind == "pre returns":
            acc.register_prehook(lambda go: (go[0] * 1,))
        elif kind == "post keeps":
            acc.register_hook(lambda gi, go: seen.append(go[0]))
        y.backward(t.ones(2))
        return [s.data_ptr() == x.grad.data_ptr() for s in seen], x.grad._version, x.grad

    same(program)


def test_hooks_see_the_graph_that_create_graph_builds() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        seen = []
        y.grad_fn.register_hook(
            lambda gi, go: seen.append((gi[0].requires_grad, go[0].requires_grad))
        )
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * gi[0],))
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x)
        return seen, g, gg

    same(program)


@pytest.mark.parametrize("value", ["number", "tensor"])
def test_a_fill_node_hook_sees_one_gradient_per_input(value: str) -> None:
    """fuzz 904525: ``fill_`` of a number (``FillBackward2``) has one input, so its node's hook
    gets one gradient; of a 0-d tensor (``FillBackward3``), two."""

    def program(t):
        x = t.tensor([1.0, 0.5, -2.0], requires_grad=True)
        v = t.tensor(0.25, requires_grad=True)
        y = x * 1
        y.fill_(0.25 if value == "number" else v)
        seen = []
        y.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)))
        (y * y).sum().backward()
        return seen, x.grad, v.grad

    same(program)


def test_a_node_hook_sees_none_for_an_input_the_backward_does_not_reach() -> None:
    """fuzz 906523: a built-in node computes no gradient for an input without an edge (a view
    of a tensor made in inference mode) or whose edge leads to no node ``autograd.grad`` needs,
    so its hook sees None there; a custom Function's node passes on what its backward returned."""

    def program(t: ModuleType) -> Any:
        seen: list[Any] = []
        a = t.tensor([1.0, 2.0], requires_grad=True)
        with t.inference_mode():
            n = a.narrow(0, 0, 1)
        v = n.view(-1)
        v.grad_fn.register_hook(lambda gi, go: seen.append(gi))
        (v * v).sum().backward()
        w = t.tensor([3.0, 4.0], requires_grad=True)
        y = a * w
        y.grad_fn.register_hook(lambda gi, go: seen.append(gi))
        t.autograd.grad(y.sum(), [a])

        class Scale(t.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, k: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2, g * 3

        z = Scale.apply(a, t.tensor([1.0, 1.0]))
        z.grad_fn.register_hook(lambda gi, go: seen.append(gi))
        z.sum().backward()
        return seen

    same(program)


@pytest.mark.parametrize("value", [[[1.0, 2.0]], [[[3.0]]], [1.0, 2.0]])
def test_an_assigned_value_loses_its_leading_ones_through_a_view(value: list[Any]) -> None:
    """fuzz 906169: ``t[key] = v`` gives ``index_put_`` ``v`` viewed without its leading size-1
    dims (torch's ``slicePrefix1sSize``: a ``ViewBackward0``), so the node's hook sees the
    value's gradient in that shape."""

    def program(t: ModuleType) -> Any:
        x = t.zeros(2, 2, requires_grad=True)
        v = t.tensor(value, requires_grad=True)
        y = x * 1
        y[[0]] = v
        seen: list[Any] = []
        y.grad_fn.register_hook(lambda gi, go: seen.append(gi))
        (y * y).sum().backward()
        names = [None if n is None else n.name() for n, _ in y.grad_fn.next_functions]
        return seen, names, v.grad, x.grad

    same(program)


def test_view_and_copy_slices_node_hooks_see_none_for_an_unreached_input() -> None:
    """fuzz 978401: a view's ``AsStridedBackward0`` (its grad_fn made again after its base was
    written) and ``CopySlices`` are built-in nodes too: no gradient for an input whose edge
    leads to no node of the backward (the view's base outside the graph, an input
    ``autograd.grad`` does not need), so their hooks see None there."""

    def program(t: ModuleType) -> Any:
        seen: list[Any] = []
        b = t.arange(4.0).view(2, 2)
        b.requires_grad_()
        v = b.narrow(1, 0, 1)
        b.detach().add_(1)
        v.grad_fn.register_hook(lambda gi, go: seen.append((v.grad_fn.name(), gi)))
        v.exp().sum().backward()
        a = t.tensor([1.0, 2.0], requires_grad=True)
        w = t.tensor([3.0], requires_grad=True)
        c = a * 1
        c[:1].mul_(w)
        c.grad_fn.register_hook(lambda gi, go: seen.append((c.grad_fn.name(), gi)))
        t.autograd.grad(c.sum(), [a], retain_graph=True)
        t.autograd.grad(c.sum(), [w])
        return seen, b.grad

    same(program)
