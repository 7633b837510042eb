"""Compare gradients by value, dtype and shape, not by ``_version``.

torch's ``_version`` of a gradient is an artefact of its engine: AccumulateGrad either steals the
incoming buffer or ``copy_``s it into a fresh one (version 1), and the engine's input buffers sum
several contributions in place. None of that is a contract a learner relies on, so tests return
``plain(x.grad)`` (a fresh copy) instead of ``x.grad``. The one contract that is kept, that
accumulation into an existing ``.grad`` is in place, has its own test in test_backward.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from support.differential import same


def plain(grad: Any) -> Any:
    """``grad`` detached and copied (version 0), or ``None``; sequences element-wise."""
    if grad is None:
        return None
    if isinstance(grad, (tuple, list)):
        return [plain(g) for g in grad]
    return grad.detach().clone()


def saved_values(fn: Any) -> dict[str, Any]:
    """A graph node's ``_saved_*`` attributes by name: what torch shows of what it saved."""
    return {k: getattr(fn, k) for k in dir(fn) if k.startswith("_saved_")}


def weighted_backward(t: Any, y: Any) -> None:
    """``(y * [1, 2, 3, ...]).sum().backward()`` in engine ``t``: each element of ``y`` gets a
    weight of its own, so a gradient sent to the wrong element shows."""
    (y * t.arange(1.0, y.numel() + 1.0).reshape(y.shape)).sum().backward()


def node_and_gradients(t: Any, y: Any, *leaves: Any) -> list[Any]:
    """What a test of an op's node compares, in engine ``t``: the result ``y``, its
    ``_version``, its node, the node's ``next_functions`` and saved values (read before the
    backward frees them), then, after :func:`weighted_backward`, each leaf's gradient
    (:func:`plain`)."""
    fn = y.grad_fn
    facts = [y, y._version, fn, fn.next_functions, saved_values(fn)]
    weighted_backward(t, y)
    return facts + [plain(x.grad) for x in leaves]


def second_order(t: Any, out: Any, x: Any) -> list[Any]:
    """What a test of an op's double backward compares, in engine ``t``: the gradient ``gx`` of
    the scalar ``out`` with respect to ``x``, made with ``create_graph``, its node and that
    node's next functions, then the gradient of ``(gx * gx).sum()`` (:func:`plain`)."""
    (gx,) = t.autograd.grad(out, x, create_graph=True)
    (ggx,) = t.autograd.grad((gx * gx).sum(), x)
    return [gx, gx.grad_fn, [f for f, _ in gx.grad_fn.next_functions], plain(ggx)]


def same_node_and_gradients(leaf: Callable[[Any], Any], op: Callable[[Any, Any], Any]) -> None:
    """Run ``op(t, x)`` on the leaf ``x = leaf(t)`` in both engines: their
    :func:`node_and_gradients` must agree (``support.differential.same``)."""

    def program(t: Any) -> Any:
        x = leaf(t)
        return node_and_gradients(t, op(t, x), x)

    same(program)


def written_in_place(step: Callable[[Any, Any], Any], x: Any, y: Any) -> tuple[Any, ...]:
    """What a test of an in-place op compares: whether ``step(x, y)`` returns ``x`` itself, then
    ``x`` and its version, and a view of ``x`` made before the write and its version."""
    view = x[:2]
    out = step(x, y)
    return out is x, x, x._version, view, view._version
