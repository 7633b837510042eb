"""A custom Function's ``ctx``: the attributes torch's ctx has (``to_save``, ``dirty_tensors``,
``non_differentiable``, ``saved_for_forward``, ``saved_variables``, ``requires_grad``,
``_forward_cls``, ``_materialize_non_diff_grads``), the one it refuses to show
(``materialize_grads``), and what it does with values of the wrong type."""

from __future__ import annotations

import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from support.differential import same

Setup = Callable[[Any, Any, Any], None]


def probe(t: ModuleType, setup: Setup, log: list[Any]) -> Any:
    """A Function whose forward runs ``setup(ctx, x, y)`` and logs ``ctx``'s attributes in
    forward, on the node afterwards and in backward."""

    def seen(ctx: Any) -> list[Any]:
        return [ctx.to_save, ctx.dirty_tensors, ctx.non_differentiable, ctx.saved_for_forward]

    class Probe(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = x * 2
            log.append(("before", seen(ctx), ctx.saved_tensors, ctx.requires_grad))
            setup(ctx, x, y)
            log.append(("forward", seen(ctx), ctx.saved_tensors, ctx.next_functions))
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            log.append(("backward", seen(ctx), ctx.saved_tensors, ctx.needs_input_grad))
            return g * 2

    return Probe


SETUPS: dict[str, Setup] = {
    "save_for_backward": lambda ctx, x, y: ctx.save_for_backward(x, None),
    "nothing saved": lambda ctx, x, y: ctx.save_for_backward(),
    "to_save set by hand": lambda ctx, x, y: setattr(ctx, "to_save", (x,)),
    "to_save deleted": lambda ctx, x, y: (ctx.save_for_backward(x), delattr(ctx, "to_save")),
    "to_save None": lambda ctx, x, y: setattr(ctx, "to_save", None),
    "marks": lambda ctx, x, y: (ctx.mark_non_differentiable(y), ctx.mark_dirty()),
    "save_for_forward": lambda ctx, x, y: ctx.save_for_forward(x, None),
    "both saves": lambda ctx, x, y: (ctx.save_for_backward(y), ctx.save_for_forward(x)),
    "materialize_grads set": lambda ctx, x, y: setattr(ctx, "materialize_grads", False),
}


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("name", list(SETUPS))
def test_ctx_attributes_in_forward_on_the_node_and_in_backward(
    name: str, requires_grad: bool
) -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        x = t.ones(2, requires_grad=requires_grad)
        y = probe(t, SETUPS[name], log).apply(x)
        node = y.grad_fn
        if node is not None:
            log.append(("node", node.to_save, node.dirty_tensors, node.non_differentiable))
            log.append(("class", type(node)._forward_cls.__name__, node._forward_cls.__name__))
            y.sum().backward()
        return log, y, x.grad

    same(program)


BAD: dict[str, Setup] = {
    "to_save a list": lambda ctx, x, y: setattr(ctx, "to_save", [x]),
    "to_save a number": lambda ctx, x, y: setattr(ctx, "to_save", 3),
    "dirty_tensors a tensor": lambda ctx, x, y: setattr(ctx, "dirty_tensors", x),
    "non_differentiable a list": lambda ctx, x, y: setattr(ctx, "non_differentiable", [y]),
    "all three wrong": lambda ctx, x, y: (
        setattr(ctx, "non_differentiable", [y]),
        setattr(ctx, "dirty_tensors", x),
        setattr(ctx, "to_save", [x]),
    ),
    "dirty and non_differentiable wrong": lambda ctx, x, y: (
        setattr(ctx, "non_differentiable", [y]),
        setattr(ctx, "dirty_tensors", x),
    ),
    "to_save and non_differentiable of numbers": lambda ctx, x, y: (
        setattr(ctx, "to_save", (3,)),
        setattr(ctx, "non_differentiable", (3,)),
    ),
    "to_save and dirty_tensors of numbers": lambda ctx, x, y: (
        setattr(ctx, "to_save", (3,)),
        setattr(ctx, "dirty_tensors", (3,)),
    ),
    "non_differentiable of a number, dirty_tensors a tensor": lambda ctx, x, y: (
        setattr(ctx, "dirty_tensors", x),
        setattr(ctx, "non_differentiable", (3,)),
    ),
    "save_for_forward a number": lambda ctx, x, y: ctx.save_for_forward(x, 3),
    "materialize_grads 0": lambda ctx, x, y: setattr(ctx, "materialize_grads", 0),
    "materialize_grads read": lambda ctx, x, y: ctx.materialize_grads,
    "_materialize_non_diff_grads 1": lambda ctx, x, y: setattr(
        ctx, "_materialize_non_diff_grads", 1
    ),
    "unknown attribute read": lambda ctx, x, y: ctx.materialize,
}


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("name", list(BAD))
def test_wrong_ctx_values_are_refused_with_torchs_error(name: str, requires_grad: bool) -> None:
    def program(t: ModuleType) -> Any:
        probe(t, BAD[name], []).apply(t.ones(2, requires_grad=requires_grad))

    raised = same(program, raises="AttributeError" if "read" in name else None)
    assert type(raised).__name__ == "Raised"


def test_an_input_marked_dirty_keeps_its_version_when_another_mark_is_refused() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(2, requires_grad=True).clone()
        setups: list[Setup] = [
            lambda ctx, x, y: (ctx.mark_dirty(x), ctx.mark_non_differentiable(y, "y")),
            lambda ctx, x, y: ctx.mark_dirty(x, 3),  # x's bump comes before the refusal
        ]
        versions: list[Any] = [x._version]
        for setup in setups:
            try:
                probe(t, setup, []).apply(x)
            except RuntimeError as exc:
                versions.append((str(exc), x._version))
        return versions

    same(program)


def test_materialize_grads_is_set_only_and_read_nowhere() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []
        y = probe(t, lambda ctx, x, y: None, log).apply(t.ones(2, requires_grad=True))
        y.grad_fn.materialize_grads = True
        y.grad_fn.materialize_grads

    same(program, raises="AttributeError")


@pytest.mark.parametrize("materialize", [True, False])
@pytest.mark.parametrize("non_diff", [True, False])
def test_materialize_non_diff_grads_decides_for_outputs_that_get_no_gradient(
    materialize: bool, non_diff: bool
) -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []

        class Several(t.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.set_materialize_grads(materialize)
                log.append(ctx._materialize_non_diff_grads)
                ctx._materialize_non_diff_grads = non_diff
                a, b, c = x * 2, x * 3, (x > 0).long()
                ctx.mark_non_differentiable(b)
                return a, b, c, 5

            @staticmethod
            def backward(ctx: Any, *grads: Any) -> Any:
                log.append([grads, ctx._materialize_non_diff_grads])
                return grads[0]

        x = t.ones(2, requires_grad=True)
        Several.apply(x)[0].sum().backward()
        return log, x.grad

    same(program)


def test_deprecated_ctx_names_warn_as_torch() -> None:
    def program(t: ModuleType) -> Any:
        log: list[Any] = []

        def setup(ctx: Any, x: Any, y: Any) -> None:
            ctx.save_for_backward(x)
            ctx.mark_shared_storage((x, y))
            log.append(ctx.saved_variables)

        y = probe(t, setup, log).apply(t.ones(2, requires_grad=True))
        return log[-1], y.grad_fn.saved_variables

    same(program)


def test_a_custom_node_prints_as_torchs_python_class() -> None:
    def program(t: ModuleType) -> Any:
        seen: list[str] = []

        def setup(ctx: Any, x: Any, y: Any) -> None:
            seen.append(repr(ctx))

        y = probe(t, setup, []).apply(t.ones(2, requires_grad=True))
        z = y * 3
        seen += [repr(y.grad_fn), str(z.grad_fn.next_functions)]
        return [re.sub("0x[0-9a-f]+", "0x", s) for s in seen]

    same(program)
