"""ownership.autograd.grad and higher-order gradients (create_graph=True).

A gradient built with create_graph=True is compared by value and requires_grad, not by grad_fn name:
the nodes of a backward formula are the engine's own choice.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import plain


def _plain(g):
    return None if g is None else [plain(g), g.requires_grad]


def test_grad_returns_a_tuple_and_does_not_touch_dot_grad() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        gs = t.autograd.grad((x * x).sum(), x)
        return [type(gs).__name__, len(gs), plain(gs[0]), plain(x.grad)]

    assert same(program)[:2] == ["tuple", 1]


def test_grad_with_several_inputs_and_outputs() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        w = t.tensor([0.5, -1.0], requires_grad=True)
        gs = t.autograd.grad([(x * w).sum(), (x * x).sum()], [x, w])
        return plain(gs)

    same(program)


def test_grad_with_grad_outputs() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        return plain(t.autograd.grad(x * 2, x, grad_outputs=t.tensor([1.0, 3.0])))

    same(program)


def test_grad_of_a_non_leaf_input() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        h = x * 2
        return plain(t.autograd.grad((h * h).sum(), h))

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        "t.autograd.grad((x * 2).sum(), [x, w])",
        "t.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)",
        "t.autograd.grad(x * 2, x)",
        "t.autograd.grad(t.ones(2).sum(), x)",
        "t.autograd.grad((x * 2).sum(), t.ones(2))",
        "t.autograd.grad(x * 2, x, grad_outputs=t.ones(3))",
    ],
    ids=["unused", "allow_unused", "non_scalar", "no_grad_path", "input_no_grad", "bad_shape"],
)
def test_grad_errors_like_torch(call: str) -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        w = t.ones(2, requires_grad=True)
        return plain(eval(call, {"t": t, "x": x, "w": w}))

    same(program)


def test_grad_frees_the_graph_unless_retained() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        t.autograd.grad(y, x)
        t.autograd.grad(y, x)

    same(program)


def test_grad_with_retain_graph() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        a = t.autograd.grad(y, x, retain_graph=True)
        b = t.autograd.grad(y, x)
        return [plain(a), plain(b)]

    same(program)


def test_without_create_graph_the_gradient_is_a_constant() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (g,) = t.autograd.grad((x**3).sum(), x)
        return [plain(g), g.requires_grad, g.grad_fn]

    same(program)


def test_second_derivative_of_x_cubed_is_6x() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, -3.0], requires_grad=True)
        (g,) = t.autograd.grad((x**3).sum(), x, create_graph=True)
        (h,) = t.autograd.grad(g.sum(), x)
        return [_plain(g), _plain(h)]

    r = same(program)
    assert r[1][0].values.tolist() == [6.0, 12.0, -18.0]


def test_third_derivative() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (g,) = t.autograd.grad((x**4).sum(), x, create_graph=True)
        (h,) = t.autograd.grad(g.sum(), x, create_graph=True)
        (k,) = t.autograd.grad(h.sum(), x)
        return [_plain(g), _plain(h), _plain(k)]

    same(program)


SECOND_ORDER = {
    "exp": lambda t, x, w: x.exp(),
    "log": lambda t, x, w: x.log(),
    "sqrt": lambda t, x, w: x.sqrt(),
    "sigmoid": lambda t, x, w: x.sigmoid(),
    "tanh": lambda t, x, w: x.tanh(),
    "relu_sq": lambda t, x, w: x.relu() * x,
    "abs_sq": lambda t, x, w: x.abs() * x,
    "clamp_sq": lambda t, x, w: x.clamp(0.5, 1.5) ** 2,
    "mul": lambda t, x, w: x * w * x,
    "div": lambda t, x, w: w / x,
    "pow_tensor": lambda t, x, w: x**w,
    "rpow": lambda t, x, w: 2.0**x,
    "matmul": lambda t, x, w: (x.view(1, 3) @ w.view(3, 1)) ** 2,
    "softmax": lambda t, x, w: x.softmax(0) * w,
    "log_softmax": lambda t, x, w: x.log_softmax(0) * w,
    "mean_sq": lambda t, x, w: x.mean() ** 2,
    "max": lambda t, x, w: x.max() * x,
    "sum_dim": lambda t, x, w: x.view(3, 1).expand(3, 2).sum(0) ** 2,
    "broadcast": lambda t, x, w: (x.view(3, 1) * w.view(1, 3)) ** 2,
    "sub_neg": lambda t, x, w: (-x - w) ** 3,
}


@pytest.mark.parametrize("op", sorted(SECOND_ORDER))
def test_second_order_gradients(op: str) -> None:
    def program(t):
        x = t.tensor([0.5, 1.2, 2.0], dtype=t.float64, requires_grad=True)
        w = t.tensor([1.5, -0.5, 0.7], dtype=t.float64, requires_grad=True)
        y = SECOND_ORDER[op](t, x, w).sum()
        gx, gw = t.autograd.grad(y, [x, w], create_graph=True, allow_unused=True)
        total = gx.sum() if gw is None else gx.sum() + (gw * gw).sum()
        hx, hw = t.autograd.grad(total, [x, w], allow_unused=True)
        return [_plain(gx), _plain(gw), _plain(hx), _plain(hw)]

    same(program)


@pytest.mark.filterwarnings(r"ignore:Using backward\(\) with create_graph=True")
def test_backward_with_create_graph_then_backward_again() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        (x**3).sum().backward(create_graph=True)
        g = x.grad
        first = [g.detach().clone(), g.requires_grad]
        x.grad = None
        g.sum().backward()
        return [first, plain(x.grad)]

    # warnings=False: torch warns (once per process) that backward(create_graph=True) makes a
    # reference cycle; ownership does not emit that warning yet (an engine difference).
    same(program, warnings=False)


def test_gradient_penalty_pattern() -> None:
    def program(t):
        w = t.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=t.float64, requires_grad=True)
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        out = (w @ x).tanh().sum()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        penalty = ((gx * gx).sum() - 1.0) ** 2
        penalty.backward()
        return [plain(w.grad), plain(x.grad), _plain(gx)]

    same(program)


def test_grad_with_respect_to_a_tensor_written_in_place_uses_its_current_value() -> None:
    """After w.sub_(...), w is the output of SubBackward0: the gradient is taken there."""

    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = x * 1
        w.sub_(w.sum())
        loss = (w * 2).sum() + x.sum()
        gx, gw = t.autograd.grad(loss, [x, w], retain_graph=True)
        (only_w,) = t.autograd.grad(loss, w)
        return [plain(gx), plain(gw), plain(only_w), w.grad_fn]

    assert same(program)[1].values.tolist() == [2.0, 2.0, 2.0]


def test_grad_returns_the_gradients_as_the_engine_left_them() -> None:
    """torch detaches nothing: a broadcast input's gradient is the summed view, a gradient that
    reaches an input unchanged is the caller's own tensor (with its history), a view of it stays
    a view that requires grad."""

    def program(t):
        x = t.ones(3, requires_grad=True)
        (broadcast,) = t.autograd.grad((x + t.ones(2, 3)).sum(), x)
        v = t.ones(3, requires_grad=True) * 2
        y = x.view(3)
        (itself,) = t.autograd.grad(y, y, v, retain_graph=True)
        (through_view,) = t.autograd.grad(y, x, v)
        return [
            (broadcast, broadcast._is_view(), broadcast.stride()),
            (itself is v, itself.grad_fn),
            (through_view, through_view._is_view(), through_view.requires_grad),
        ]

    same(program)


GRAD_CALLS: dict[str, Any] = {
    "retain_graph a str": lambda t, x, z, y: t.autograd.grad(y, x, retain_graph="yes"),
    "create_graph a str": lambda t, x, z, y: t.autograd.grad(y, x, create_graph="yes"),
    "allow_unused a str": lambda t, x, z, y: t.autograd.grad(y, x, allow_unused="yes"),
    "allow_unused a float": lambda t, x, z, y: t.autograd.grad(y, x, allow_unused=2.5),
    "retain_graph a float tensor": lambda t, x, z, y: t.autograd.grad(
        y, x, retain_graph=t.tensor(1.5)
    ),
    "materialize_grads, allow_unused=False": lambda t, x, z, y: t.autograd.grad(
        y, [x, z], materialize_grads=True, allow_unused=False
    ),
    "materialize_grads, allow_unused=False, inputs a str": lambda t, x, z, y: t.autograd.grad(
        y, "x", materialize_grads=True, allow_unused=False
    ),
    "materialize_grads": lambda t, x, z, y: t.autograd.grad(y, [x, z], materialize_grads=True),
    "materialize_grads, allow_unused=None": lambda t, x, z, y: t.autograd.grad(
        y, [x, z], materialize_grads=True, allow_unused=None
    ),
    "1 output, 2 gradients": lambda t, x, z, y: t.autograd.grad(y, x, [t.ones(()), t.ones(())]),
    "2 outputs, 1 gradient": lambda t, x, z, y: t.autograd.grad([y, y], x, [t.ones(())]),
    "1 output, 0 gradients": lambda t, x, z, y: t.autograd.grad([y], [x], []),
    "2 outputs, 1 gradient, retain_graph a str": lambda t, x, z, y: t.autograd.grad(
        [y, y], x, [None], retain_graph="x"
    ),
    "no history": lambda t, x, z, y: t.autograd.grad(t.tensor([1.0, 2.0]), x),
    "no history, inputs a str": lambda t, x, z, y: t.autograd.grad(t.tensor([1.0, 2.0]), "x"),
    "a vector output": lambda t, x, z, y: t.autograd.grad([y, x], x),
    "inputs, a str first": lambda t, x, z, y: t.autograd.grad(y, ["x", t.ones(2)]),
    "inputs, a str after one without grad": lambda t, x, z, y: t.autograd.grad(y, [t.ones(2), "x"]),
    "inputs a str, retain_graph a str": lambda t, x, z, y: t.autograd.grad(
        y, "x", retain_graph="a"
    ),
}


@pytest.mark.parametrize("call", GRAD_CALLS)
def test_grad_checks_its_arguments_in_torchs_order(call: str) -> None:
    """``materialize_grads`` with ``allow_unused=False`` first (torch's ValueError), then
    ``_make_grads`` (outputs and gradients paired as ``zip`` pairs them), then the engine's
    flags (read as C++ reads an unsigned byte), one gradient per output ("got 2 tensors and 1
    gradients"), each output's history, then the inputs one by one."""

    def program(t: Any) -> Any:
        x = t.ones(3, requires_grad=True)
        z = t.ones(2, requires_grad=True)
        y = (x * 2).sum()
        return GRAD_CALLS[call](t, x, z, y)

    same(program)


@pytest.mark.parametrize("create_graph", [False, True])
def test_materialized_gradients_are_zeros_that_require_grad_with_create_graph(
    create_graph: bool,
) -> None:
    def program(t: Any) -> Any:
        a = t.tensor([1.0, 2.0], requires_grad=True)
        unused = t.ones(3, 2, requires_grad=True)
        grads = t.autograd.grad(
            (a * 2).sum(), [a, unused.t()], materialize_grads=True, create_graph=create_graph
        )
        return [(g, g.is_leaf, g.grad_fn, g.stride()) for g in grads]

    same(program)


def test_the_implicit_gradient_keeps_the_outputs_strides() -> None:
    """Fuzz program 50906: torch's seed is ``ones_like(output, preserve_format)``: a one-element
    output's strides, a size-1 dim's included, are kept."""

    def program(t: Any) -> Any:
        x = t.tensor([[-0.0, 1.5], [0.5, 2.0]], requires_grad=True)
        y = x.diagonal()[1:]
        z = x.t()[:1, 1:]
        (gy,) = t.autograd.grad(y, [y], retain_graph=True)
        (gz,) = t.autograd.grad(z, [z])
        return gy, gy.stride(), gz, gz.stride()

    same(program)


def test_a_lone_root_no_input_needs_still_runs_its_tensor_hooks() -> None:
    """torch evaluates the node of a lone root first, even when no input needs it: the root's
    tensor hooks and ``retain_grad`` see the gradient (fuzz 97353: ``l2.grad`` was None), its
    node's own pre-hooks do not run, and nothing is computed. With two roots, a graph root
    comes first and passes nothing to a node no input needs."""

    def program(t):
        x = t.tensor([[0.5, 0.0], [0.0, -1.0]], requires_grad=True)
        loss = (x * x).sum()
        loss.retain_grad()
        seen = []
        loss.register_hook(lambda g: seen.append(g.item()))
        loss.grad_fn.register_prehook(lambda gs: seen.append("node pre-hook"))
        other = t.tensor([1.0, -2.0], requires_grad=True)
        unused = t.autograd.grad(loss, [other], retain_graph=True, allow_unused=True)
        doubled = loss * 2
        doubled.retain_grad()
        two = t.autograd.grad([doubled, loss], [other], retain_graph=True, allow_unused=True)
        doubled.backward(inputs=[other], retain_graph=True)
        return [unused, loss.grad, seen, x.grad, two, doubled.grad, other.grad]

    same(program)


def test_an_input_whose_node_runs_is_captured_before_its_hooks() -> None:
    """fuzz 902056: ``autograd.grad`` captures a non-leaf input's gradient before its tensor
    hooks, ``retain_grad`` and node pre-hooks when its node must run on (to reach another
    input); when the node does not run, after its tensor hooks and ``retain_grad`` (torch's
    ``evaluate_function``)."""

    def program(t):
        x = t.tensor(-1.0, requires_grad=True)
        y = x + x
        y.register_hook(lambda g: g * 2)
        y.retain_grad()
        y.grad_fn.register_prehook(lambda gs: (gs[0] * 5,))
        z = y * 3
        runs_on = t.autograd.grad(z, [y, x], retain_graph=True)
        stops = t.autograd.grad(z, [y], retain_graph=True)
        root = t.autograd.grad(y, [y, x], retain_graph=True)
        return runs_on, stops, root, y.grad

    same(program)
