"""The hooks' call sites: where the backward loop calls tensor and node hooks, in torch's order.

For each node: its tensors' hooks (``t.register_hook``, each seeing the previous one's result),
``retain_grad``, the node's pre hooks, the node (or a leaf's accumulation, then its
post-accumulate-grad hooks), its post hooks; each result checked as torch checks it. Registration
is parity's (``ownership.autograd.graph``), filling the tables read here.

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> handle = x.register_hook(lambda g: g * 10)
>>> (x * 3).sum().backward()
>>> x.grad
tensor([30., 30.])
>>> handle.remove()
>>> a = ownership.tensor([0.0, 0.0, 0.0], requires_grad=True)
>>> b = a.clone()
>>> handle = b.grad_fn.register_hook(lambda gI, gO: (gO[0] * 2,))
>>> b.sum().backward()
>>> a.grad
tensor([2., 2., 2.])
>>> handle.remove()
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

HookDict = OrderedDict[int, Callable[..., Any]]

LEAF_HOOKS: dict[int, tuple[weakref.ref[Any], HookDict]] = {}
"""Leaf tensor id -> (weak reference to the leaf, its hooks)."""
POST_ACCUMULATE_HOOKS: dict[int, tuple[weakref.ref[Any], HookDict]] = {}


class NodeHooks(dict[int, HookDict]):
    """Every hook of one node (``Node._pre_hooks``): by output number, its tensors' hooks; ``pre``
    and ``post``, the node's own; ``dicts``, ``_register_hook_dict``'s, by output number."""

    __slots__ = ("dicts", "post", "pre")

    def __init__(self) -> None:
        super().__init__()
        self.pre: HookDict = OrderedDict()
        self.post: HookDict = OrderedDict()
        self.dicts: list[tuple[int, dict[Any, Callable[..., Any]]]] = []


def hook_name(fn: Any) -> str:
    return str(getattr(fn, "__name__", type(fn).__name__))


def checked(fn: Any, old: Any, new: Any) -> Any:
    """torch's checks on a hook's returned gradient."""
    if not hasattr(type(new), "_version") or not hasattr(new, "dtype"):  # an inference one too
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if old is None:  # the gradient was undefined: nothing to compare with
        return new
    if new.dtype is not old.dtype:
        raise RuntimeError(
            f"hook '{hook_name(fn)}' has changed the type of value (was "
            f"torch.{old.dtype.legacy} got torch.{new.dtype.legacy})"
        )
    if tuple(new.shape) != tuple(old.shape):
        raise RuntimeError(f"hook '{hook_name(fn)}' has changed the size of value")
    return new


def _run_chain(hooks: dict[Any, Callable[..., Any]], grad: Any) -> Any:
    """Run ``hooks`` in order on ``grad``, each seeing the previous one's result."""
    for fn in list(hooks.values()):
        result = fn(grad)
        if result is not None and result is not grad:
            grad = checked(fn, grad, result)
        del result
    return grad


def run_pre_hooks(node: Any, grads: list[Any]) -> None:
    """Apply the hooks of ``node``'s outputs (or of its leaf) to ``grads``, in place."""
    chains: list[tuple[int, Any]] = []
    node_hooks: NodeHooks | None = node._pre_hooks
    if type(node).__name__ == "AccumulateGrad":  # a leaf's tensor hooks live beside the leaf
        variable = node.variable
        entry = LEAF_HOOKS.get(id(variable))
        if entry is not None and entry[0]() is variable:
            chains = [(0, entry[1])]
    elif node_hooks is not None:
        chains = list(node_hooks.items())
    for nr, chain in chains + (node_hooks.dicts if node_hooks is not None else []):
        if chain:  # torch calls a tensor's hooks with None when its gradient is undefined
            grads[nr] = _run_chain(chain, grads[nr])


def run_post_accumulate(variable: Any) -> None:
    """Call a leaf's post-accumulate-grad hooks as torch does: a chain of tensor hooks, after
    which a replaced leaf is torch's error."""
    entry = POST_ACCUMULATE_HOOKS.get(id(variable))
    if (
        entry is not None
        and entry[0]() is variable
        and entry[1]
        and _run_chain(entry[1], variable) is not variable
    ):
        raise RuntimeError("Tensor post accumulate grad hooks should return None.")


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
    """torch's ``call_function`` for a node with hooks: pre hooks, the node (if some gradient
    arrived), ``validate_outputs``, post hooks."""
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
