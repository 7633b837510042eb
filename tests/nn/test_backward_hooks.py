"""Full backward hooks and backward pre-hooks on modules: torch's BackwardHook semantics."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import grad_of, same


def linear(t: ModuleType) -> Any:
    """Linear(2, 2) with fixed weights."""
    lin = t.nn.Linear(2, 2)
    with t.no_grad():
        lin.weight.copy_(t.tensor([[1.0, -2.0], [0.5, 3.0]]))
        lin.bias.copy_(t.tensor([0.1, -0.2]))
    return lin


def logged(t: ModuleType, module: Any, log: list[Any]) -> Any:
    """Register a pre-hook and a full hook on ``module`` that log what they are given."""
    module.register_full_backward_pre_hook(lambda m, go: log.append(("pre", m is module, go)))
    module.register_full_backward_hook(lambda m, gi, go: log.append(("full", m is module, gi, go)))
    return module


def test_hooks_see_the_gradients_of_outputs_then_of_inputs() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        lin = logged(t, linear(t), log)
        x = t.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
        y = lin(x)
        (y * t.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return log, grad_of(x), grad_of(lin.weight)

    same(program)


def test_the_outputs_and_inputs_pass_through_an_identity_node_as_views() -> None:
    def program(t: ModuleType) -> Any:
        seen: list[Any] = []
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: None)
        lin.register_forward_hook(lambda m, args, out: seen.append((args[0]._base is x, out)))
        x = t.ones(1, 2, requires_grad=True) * 2
        y = lin(x)
        node = y.grad_fn
        return (
            node,
            node.next_functions,
            y._base is not None,
            y.is_leaf,
            y.requires_grad,
            y._version,
            seen,
            y,
        )

    same(program)


def test_an_in_place_write_on_a_hooked_modules_output_is_refused() -> None:
    def program(t: ModuleType) -> Any:
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: None)
        t.nn.ReLU(inplace=True)(lin(t.ones(1, 2, requires_grad=True)))

    same(program, raises="RuntimeError")


def test_a_hooked_model_with_an_in_place_relu_after_a_hooked_layer_fails_in_forward() -> None:
    def program(t: ModuleType) -> Any:
        model = t.nn.Sequential(linear(t), t.nn.ReLU(inplace=True))
        model[0].register_full_backward_pre_hook(lambda m, go: None)
        model(t.ones(1, 2, requires_grad=True))

    same(program, raises="RuntimeError")


def test_a_returned_grad_input_replaces_the_gradient_of_the_input() -> None:
    def program(t: ModuleType) -> Any:
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
        x = t.ones(1, 2, requires_grad=True)
        lin(x).sum().backward()
        return grad_of(x), grad_of(lin.weight)

    same(program)


def test_a_returned_grad_output_replaces_what_flows_into_the_module() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        lin = linear(t)
        lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0.5,))
        logged(t, lin, log)  # registered after: sees the replaced gradient
        x = t.ones(1, 2, requires_grad=True)
        lin(x).sum().backward()
        return log, grad_of(x), grad_of(lin.weight), grad_of(lin.bias)

    same(program)


def test_hooks_run_in_registration_order_and_prepend_puts_one_first() -> None:
    def program(t: ModuleType) -> Any:
        order: list[str] = []
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: order.append("full 1"))
        lin.register_full_backward_hook(lambda m, gi, go: order.append("full 0"), prepend=True)
        lin.register_full_backward_pre_hook(lambda m, go: order.append("pre 1"))
        lin.register_full_backward_pre_hook(lambda m, go: order.append("pre 0"), prepend=True)
        lin(t.ones(1, 2, requires_grad=True)).sum().backward()
        return order

    assert same(program) == ["pre 0", "pre 1", "full 0", "full 1"]


def test_a_hook_removed_after_forward_still_runs_for_that_forward() -> None:
    def program(t: ModuleType) -> Any:
        calls: list[str] = []
        lin = linear(t)
        handle = lin.register_full_backward_hook(lambda m, gi, go: calls.append("hook"))
        y = lin(t.ones(1, 2, requires_grad=True))
        handle.remove()
        y.sum().backward()
        lin(t.ones(1, 2, requires_grad=True)).sum().backward()
        return calls

    assert same(program) == ["hook"]


def test_several_inputs_and_outputs_none_where_not_a_tensor_or_no_gradient() -> None:
    def program(t: ModuleType) -> Any:
        class Two(t.nn.Module):  # type: ignore[name-defined,misc]
            def forward(self, a: Any, b: Any, k: int = 3) -> Any:
                return a * 2, b * k, "label"

        log: list[Any] = []
        two = logged(t, Two(), log)
        a = t.ones(2, requires_grad=True)
        b = t.ones(2, requires_grad=True)
        p, q, label = two(a, b, 5)
        p.sum().backward()
        return log, grad_of(a), grad_of(b), label, q.grad_fn

    same(program)


def test_an_input_that_needs_no_gradient_gets_zeros_and_its_output_no_history() -> None:
    def program(t: ModuleType) -> Any:
        class Two(t.nn.Module):  # type: ignore[name-defined,misc]
            def forward(self, a: Any, b: Any) -> Any:
                return a * 2, b * 3

        log: list[Any] = []
        two = logged(t, Two(), log)
        a = t.ones(2, requires_grad=True)
        b = t.ones(2)
        p, q = two(a, b)
        facts = (q.requires_grad, q.grad_fn, q._base is not None)
        p.sum().backward()
        return log, facts, grad_of(a), b.grad

    same(program)


def test_an_in_place_write_on_an_output_without_history_is_refused_too() -> None:
    def program(t: ModuleType) -> Any:
        class Two(t.nn.Module):  # type: ignore[name-defined,misc]
            def forward(self, a: Any, b: Any) -> Any:
                return a * 2, b * 3

        two = Two()
        two.register_full_backward_hook(lambda m, gi, go: None)
        a = t.ones(2, requires_grad=True)
        _, q = two(a, t.ones(2))
        q.add_(a)

    same(program, raises="RuntimeError")


def test_when_no_input_requires_grad_the_hook_fires_from_the_outputs_with_a_warning() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        lin = logged(t, linear(t), log)
        lin(t.ones(1, 2)).sum().backward()
        return log, grad_of(lin.weight)

    same(program)


def test_when_no_input_requires_grad_a_hook_may_not_return_gradients() -> None:
    def program(t: ModuleType) -> Any:
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: (t.ones(1, 2),))
        lin(t.ones(1, 2)).sum().backward()

    same(program, raises="RuntimeError")


def test_when_no_input_requires_grad_a_tuple_of_none_is_accepted() -> None:
    def program(t: ModuleType) -> Any:
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: (None,))
        lin(t.ones(1, 2)).sum().backward()
        return grad_of(lin.bias)

    same(program)


@pytest.mark.parametrize("kind", ["full", "pre"])
def test_a_hook_returning_the_wrong_number_of_gradients_is_refused(kind: str) -> None:
    def program(t: ModuleType) -> Any:
        lin = linear(t)
        if kind == "full":
            lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        else:
            lin.register_full_backward_pre_hook(lambda m, go: ())
        lin(t.ones(1, 2, requires_grad=True)).sum().backward()

    same(program, raises="RuntimeError")


def test_no_hook_runs_and_no_node_is_made_under_no_grad() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        lin = logged(t, linear(t), log)
        x = t.ones(1, 2, requires_grad=True)
        with t.no_grad():
            y = lin(x)
        return y.grad_fn, y._base, log

    same(program)


def test_an_output_that_is_not_a_tensor_or_tuple_warns() -> None:
    def program(t: ModuleType) -> Any:
        class Listing(t.nn.Module):  # type: ignore[name-defined,misc]
            def forward(self, x: Any) -> Any:
                return [x * 2]

        m = Listing()
        m.register_full_backward_hook(lambda mod, gi, go: None)
        out = m(t.ones(2, requires_grad=True))
        return out, out[0].grad_fn

    same(program)


def test_hooks_on_a_container_and_its_layers_run_from_the_loss_backwards() -> None:
    def program(t: ModuleType) -> Any:
        order: list[Any] = []
        model = t.nn.Sequential(linear(t), t.nn.Tanh(), linear(t))
        for name, module in model.named_modules():
            module.register_full_backward_pre_hook(lambda m, go, n=name: order.append(("pre", n)))
            module.register_full_backward_hook(
                lambda m, gi, go, n=name: order.append(("full", n, gi[0].shape))
            )
        x = t.tensor([[0.5, -1.0]], requires_grad=True)
        model(x).pow(2).sum().backward()
        return order, grad_of(x)

    same(program)


def test_hooks_see_each_call_of_a_module_used_twice() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: log.append((gi, go)))
        x = t.tensor([[1.0, 2.0]], requires_grad=True)
        y = lin(lin(x))
        y.sum().backward()
        return log, grad_of(x)

    same(program)


def test_a_kept_output_gradient_with_retain_graph_runs_hooks_each_backward() -> None:
    def program(t: ModuleType) -> Any:
        count: list[int] = []
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: count.append(len(count)))
        x = t.ones(1, 2, requires_grad=True)
        y = lin(x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return count, grad_of(x)

    same(program)


def test_writing_the_input_in_place_after_forward_fails_in_backward() -> None:
    def program(t: ModuleType) -> Any:
        lin = linear(t)
        lin.register_full_backward_hook(lambda m, gi, go: None)
        x = t.ones(1, 2, requires_grad=True) * 1
        y = lin(x)
        with t.no_grad():
            x.mul_(2)
        y.sum().backward()

    same(program, raises="RuntimeError")


def test_calling_a_module_whose_init_skipped_modules_names_the_backward_hooks() -> None:
    def program(t: ModuleType) -> Any:
        class Forgot(t.nn.Module):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                pass

            def forward(self, x: Any) -> Any:
                return x

        Forgot()(t.ones(1))

    same(program, raises="AttributeError")


def test_a_hook_on_a_container_allows_an_in_place_relu_inside_it() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        model = logged(t, t.nn.Sequential(linear(t), t.nn.ReLU(inplace=True)), log)
        x = t.tensor([[1.0, -1.0]], requires_grad=True)
        y = model(x)
        y.sum().backward()
        return y, y.grad_fn, y._base is not None, log, grad_of(x)

    same(program)


def _legacy(t: ModuleType, case: str) -> Any:
    """A module with a legacy ``register_backward_hook``: what the hook sees, the gradients."""
    log: list[Any] = []
    x = t.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    if case == "relu of a non-leaf":  # one node: the hook sees the whole module
        module, arg = t.nn.ReLU(), x * 2
    elif case == "linear":  # several nodes (addmm and the weight's transpose)
        module, arg = linear(t), x
    elif case == "sequential":
        module, arg = t.nn.Sequential(linear(t), t.nn.Tanh()), x
    else:  # "tuple output": the hook sees the first output's node
        module, arg = Split(t), x * 1
    module.register_backward_hook(lambda m, gi, go: log.append((m is module, gi, go)))
    out = module(arg)
    first = out if isinstance(out, t.Tensor) else out[0]
    (first * t.tensor([[1.0, 2.0], [3.0, 4.0]])[:, : first.shape[1]]).sum().backward()
    return log, grad_of(x)


class Split:
    """``nn.Module`` returning ``x.split(1, 1)`` (made for either engine)."""

    def __new__(cls, t: ModuleType) -> Any:
        class _Split(t.nn.Module):  # type: ignore[name-defined, misc]
            def forward(self, x: Any) -> Any:
                return x.split(1, 1)

        return _Split()


@pytest.mark.parametrize("case", ["relu of a non-leaf", "linear", "sequential", "tuple output"])
def test_legacy_backward_hooks_see_one_node_with_torchs_warning(case: str) -> None:
    same(lambda t: _legacy(t, case))


def test_legacy_and_full_backward_hooks_do_not_mix() -> None:
    def program(t: ModuleType) -> Any:
        first, second = t.nn.ReLU(), t.nn.ReLU()
        first.register_backward_hook(lambda *a: None)
        second.register_full_backward_hook(lambda *a: None)
        errors = []
        for call in (
            lambda: first.register_full_backward_hook(lambda *a: None),
            lambda: second.register_backward_hook(lambda *a: None),
        ):
            try:
                call()
            except RuntimeError as e:
                errors.append(str(e))
        return errors, first._is_full_backward_hook, second._is_full_backward_hook

    same(program)


def test_a_legacy_hook_may_replace_the_nodes_gradients() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        relu = t.nn.ReLU()
        relu.register_backward_hook(lambda m, gi, go: (gi[0] * 10,))
        (relu(x * 1) * 2).sum().backward()
        relu(t.ones(2))  # no grad_fn: nothing hooked, no warning
        return grad_of(x)

    same(program)
