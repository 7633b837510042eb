"""Hooks on graph nodes, torch's ``Node.register_prehook`` and ``Node.register_hook``.

- ``node.register_prehook(fn)``: ``fn(grad_outputs)`` runs before the node, with the tuple of
  the gradients of its outputs (None where none arrived), after the hooks of the tensors it made
  and their ``retain_grad``; returning a tuple replaces them.
- ``node.register_hook(fn)``: ``fn(grad_inputs, grad_outputs)`` runs after the node, with the
  gradients it computed for its inputs (one per ``next_functions`` entry) and the ones it was
  given; returning a tuple replaces the gradients of its inputs.

A leaf's ``AccumulateGrad`` runs them too: its pre hooks after the leaf's tensor hooks, its
post hooks (``grad_inputs`` is ``()``) after ``.grad`` is updated and the leaf's
post-accumulate-grad hooks have run. ``autograd.grad`` runs no node it does not need: neither a
leaf's accumulator nor the node of an input that leads to no other input.

Hooks run in registration order, each seeing the previous one's result, and are checked as
torch checks them (a tuple, of the right length, no gradient where there was none, each of the
same dtype and shape). All of a node's hooks live in its one slot
(``NodeHooks``, in ``ownership.core.autograd.hooks``), None while it has none.

>>> import ownership
>>> a = ownership.tensor([0.0, 0.0, 0.0], requires_grad=True)
>>> b = a.clone()
>>> handle = b.grad_fn.register_hook(lambda gI, gO: (gO[0] * 2,))
>>> b.sum().backward()
>>> a.grad
tensor([2., 2., 2.])
>>> handle.remove()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ownership.core.autograd.hooks import (
    NodeHooks,
    RemovableHandle,
    add,
    checked,
    hook_name,
    hooks_of,
)

__all__ = ["HookableNode", "call_node", "run_post", "run_pre"]

SEQUENCE_NR_OF_LEAF = 2**64 - 1
"""torch's ``_sequence_nr()`` of an ``AccumulateGrad`` (``UINT64_MAX``): run after every node."""


class HookableNode:
    """The hook methods of a graph node (a base of ``Node``)."""

    __slots__ = ()
    _pre_hooks: NodeHooks | None
    _seq: int

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """torch's ``Node.register_prehook``: ``fn(grad_outputs)`` before the node runs; a
        returned tuple replaces ``grad_outputs``. ``handle.remove()`` unregisters it."""
        return add(hooks_of(self).pre, fn)

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """torch's ``Node.register_hook``: ``fn(grad_inputs, grad_outputs)`` after the node
        runs; a returned tuple replaces ``grad_inputs``. ``handle.remove()`` unregisters it."""
        return add(hooks_of(self).post, fn)

    def _register_hook_dict(self, tensor: Any) -> None:
        """torch's private ``_register_hook_dict``: the tensor hooks in ``tensor._backward_hooks``
        (a dict of functions, read at every backward) run on this node's output
        ``tensor.output_nr``, after that output's own tensor hooks."""
        if not hasattr(tensor, "_version") or not hasattr(tensor, "_output_nr"):
            raise TypeError("_register_hook_dict expected a variable")
        table = tensor.__dict__.get("_backward_hooks")
        if table is not None:
            hooks_of(self).dicts.append((tensor._output_nr, table))

    def _sequence_nr(self) -> int:
        """torch's ``_sequence_nr()``: nodes made later have larger numbers (torch counts per
        thread from 0, so compare two numbers, never one with torch's)."""
        return self._seq


def _checked_tuple(fn: Any, old: tuple[Any, ...], new: Any) -> tuple[Any, ...]:
    """torch's checks on what a node hook returned instead of ``old``."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(
            f"hook '{hook_name(fn)}' has returned an incorrect number of values "
            f"(got {len(new)}, but expected {len(old)})"
        )
    for was, got in zip(old, new, strict=True):
        if got is None:
            continue
        if was is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        checked(fn, was, got)
    return new


def run_pre(hooks: NodeHooks, grads: tuple[Any, ...]) -> tuple[Any, ...]:
    """The node's pre hooks, in registration order, on the gradients of its outputs."""
    for fn in list(hooks.pre.values()):
        result = fn(grads)
        if result is not None:
            grads = _checked_tuple(fn, grads, result)
    return grads


def run_post(hooks: NodeHooks, grad_inputs: tuple[Any, ...], grads: tuple[Any, ...]) -> list[Any]:
    """The node's post hooks, in registration order, on the gradients of its inputs."""
    for fn in list(hooks.post.values()):
        result = fn(grad_inputs, grads)
        if result is not None:
            grad_inputs = _checked_tuple(fn, grad_inputs, result)
    return list(grad_inputs)


def call_node(
    node: Any, grads: list[Any], validate_outputs: Callable[[Any, list[Any]], None]
) -> list[Any]:
    """torch's ``call_function`` for a non-leaf node with hooks: its pre hooks, the node (only
    if some gradient arrived: the engine's rule), then its post hooks; the gradients of its
    inputs checked and cast by ``validate_outputs`` (the engine's) before the post hooks see
    them."""
    hooks: NodeHooks = node._pre_hooks
    given = tuple(grads)
    if hooks.pre:
        given = run_pre(hooks, given)
    if any(g is not None for g in given):
        outs = list(node.apply(given))
        validate_outputs(node, outs)
    else:
        outs = [None] * len(node._edges)
    if hooks.post:
        return run_post(hooks, tuple(outs), given)
    return outs
