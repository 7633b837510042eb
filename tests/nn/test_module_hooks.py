"""Module forward hooks and forward pre-hooks against torch: what they see, replacement,
order, removal, kwargs; and the capture-activations pattern with and without detach."""

from __future__ import annotations

import weakref
from types import ModuleType
from typing import Any

import pytest

from support import nn_models
from support.differential import same

model = nn_models.mlp


def test_capture_activations_with_and_without_detach() -> None:
    def program(t: ModuleType) -> Any:
        net = model(t)
        kept: dict[str, Any] = {}

        def keep(name: str, detach: bool) -> Any:
            def hook(module: Any, args: Any, output: Any) -> None:
                kept[name] = output.detach() if detach else output

            return hook

        handles = [
            net[0].register_forward_hook(keep("fc0", detach=True)),
            net[2].register_forward_hook(keep("fc2", detach=False)),
        ]
        out = net(t.ones(5, 3))
        out.sum().backward()
        for h in handles:
            h.remove()
        net(t.ones(5, 3))  # removed: nothing captured again
        return kept["fc0"], kept["fc2"], kept["fc2"] is out, kept["fc0"]._version

    same(program)


def test_hooks_see_args_and_may_replace_input_and_output() -> None:
    def program(t: ModuleType) -> Any:
        layer = model(t)[0]
        log = []
        layer.register_forward_pre_hook(lambda m, args: log.append(("pre", type(args).__name__)))
        layer.register_forward_pre_hook(lambda m, args: args[0] * 2)  # not a tuple: wrapped
        layer.register_forward_hook(lambda m, args, out: log.append(("post", args[0])))
        layer.register_forward_hook(lambda m, args, out: out.relu())
        return layer(t.ones(2, 3)), log

    same(program)


def test_prepend_and_registration_order() -> None:
    def program(t: ModuleType) -> Any:
        layer = t.nn.ReLU()
        order = []
        layer.register_forward_hook(lambda m, a, o: order.append("a"))
        layer.register_forward_hook(lambda m, a, o: order.append("b"), prepend=True)
        layer.register_forward_pre_hook(lambda m, a: order.append("pre a"))
        layer.register_forward_pre_hook(lambda m, a: order.append("pre b"), prepend=True)
        layer(t.ones(1))
        return order

    same(program)


def test_with_kwargs_hooks() -> None:
    def program(t: ModuleType) -> Any:
        class Scale(t.nn.Module):  # type: ignore[name-defined, misc]
            def forward(self, x: Any, factor: float = 1.0) -> Any:
                return x * factor

        layer = Scale()
        seen = []
        layer.register_forward_pre_hook(
            lambda m, args, kwargs: (args, {"factor": kwargs["factor"] + 1}), with_kwargs=True
        )
        layer.register_forward_hook(
            lambda m, args, kwargs, out: seen.append((kwargs, out)), with_kwargs=True
        )
        return layer(t.ones(2), factor=2.0), seen

    same(program)


def test_bad_pre_hook_result_with_kwargs() -> None:
    def program(t: ModuleType) -> Any:
        layer = t.nn.ReLU()
        layer.register_forward_pre_hook(lambda m, args, kwargs: 5, with_kwargs=True)
        return layer(t.ones(1))

    same(program)


@pytest.mark.parametrize("detach", [False, True])
def test_a_kept_activation_keeps_its_graph(detach: bool) -> None:
    def program(t: ModuleType) -> Any:
        net = model(t)
        kept = []
        net[1].register_forward_hook(lambda m, a, o: kept.append(o.detach() if detach else o))
        for _ in range(2):
            net.zero_grad()
            net(t.ones(4, 3)).sum().backward()
        return [(k.grad_fn, k.requires_grad, k.is_leaf) for k in kept]

    same(program)


@pytest.mark.parametrize("detach", [False, True])
def test_a_kept_activation_keeps_the_batch_alive_until_detached(detach: bool) -> None:
    def program(t: ModuleType) -> Any:
        net = model(t)
        kept = []
        net[1].register_forward_hook(lambda m, a, o: kept.append(o.detach() if detach else o))
        batch = t.ones(5, 3)
        watch = weakref.ref(batch)
        net(batch)
        del batch
        alive = watch() is not None
        kept.clear()  # dropping the activation frees its graph at once: no cycle keeps it
        return alive, watch() is not None

    same(program)


def test_a_graph_that_saved_its_own_output_is_freed_when_dropped() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(3, requires_grad=True)
        scale = t.full((3,), 2.0)
        y = (x * scale).exp()  # mul saves scale; exp saves its own result
        watch = weakref.ref(scale)
        del scale
        alive = watch() is not None
        del y
        return alive, watch() is None

    same(program)


def _always_called(t: ModuleType, fail: str) -> Any:
    """A Linear whose ``always_call`` forward hooks log what they see when ``fail`` raises."""
    log: list[Any] = []
    lin = t.nn.Linear(2, 1)

    def pre(module: Any, args: Any) -> Any:
        if fail == "pre-hook":
            raise ValueError("pre-hook failed")
        return (args[0] * 2,)

    def broken(module: Any, args: Any, out: Any) -> Any:
        log.append(("broken", out is None))
        raise KeyError("hook failed")

    def raising_forward(x: Any) -> Any:
        raise RuntimeError("forward failed")

    lin.register_forward_pre_hook(pre)
    lin.register_forward_hook(lambda m, a, o: log.append(("plain", o is None)))
    lin.register_forward_hook(broken, always_call=fail != "hook")
    lin.register_forward_hook(
        lambda m, a, o: log.append(("always", a[0].tolist())), always_call=True
    )
    lin.register_forward_hook(
        lambda m, a, k, o: log.append(("kwargs", sorted(k), o is None)),
        with_kwargs=True,
        always_call=True,
    )
    if fail == "forward":
        lin.forward = raising_forward
    try:
        lin(t.ones(1, 2))
    except Exception as e:
        log.append((type(e).__name__, str(e)))
    return log


@pytest.mark.parametrize("fail", ["forward", "pre-hook", "hook", "nothing"])
def test_always_called_forward_hooks_run_when_the_call_raises(fail: str) -> None:
    same(lambda t: _always_called(t, fail))


def test_always_called_hooks_are_removed_with_their_handle() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        relu = t.nn.ReLU()
        handle = relu.register_forward_hook(lambda *a: log.append(1), always_call=True)
        relu.register_forward_pre_hook(lambda *a: 1 / 0)
        handle.remove()
        try:
            relu(t.ones(1))
        except ZeroDivisionError as e:
            log.append(str(e))
        return log, len(relu._forward_hooks_always_called)

    same(program)
