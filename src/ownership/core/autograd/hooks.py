"""The hooks' call sites: where the backward loop calls tensor and node hooks, in torch's order.

The loop (``ownership.core.autograd.engine``) calls, for each node it runs:

1. the hooks of the tensors the node made (``t.register_hook(fn)``), by output number, in
   registration order, each seeing the previous one's result: ``fn(grad)`` returning a tensor
   replaces the gradient, ``None`` keeps it; a leaf's run on its ``AccumulateGrad`` before
   the gradient is accumulated; then the hook dicts of ``_register_hook_dict``;
2. ``retain_grad``'s storing of a non-leaf's ``.grad`` (the engine's loop, after the hooks);
3. the node's pre hooks (``node.register_prehook(fn)``): ``fn(grad_outputs)`` with the tuple of
   the gradients of its outputs (None where none arrived); a returned tuple replaces them;
4. the node itself (only if some gradient arrived), or a leaf's accumulation into ``.grad``
   followed by its post-accumulate-grad hooks (``fn(leaf)``, which must return None);
5. the node's post hooks (``node.register_hook(fn)``): ``fn(grad_inputs, grad_outputs)``; a
   returned tuple replaces ``grad_inputs`` (a leaf's accumulator gets ``()``).

``autograd.grad`` runs no node it does not need: neither a leaf's accumulator nor the node of an
input that leads to no other input. What a hook returns is checked as torch checks it (a tensor,
or a tuple of the right length, no gradient where there was none, each of the same dtype and
shape).

Registering them is parity, above core: the methods ``Tensor.register_hook``,
``Tensor.register_post_accumulate_grad_hook``, ``Node.register_prehook``, ``Node.register_hook``
and the ``RemovableHandle`` they return are ``ownership.autograd.graph``'s, set on the classes
by ``ownership.installation.install()``. They fill the tables this module reads, its seams: a
non-leaf's hooks live on its ``grad_fn``, in the node's one slot ``_pre_hooks`` (a
:class:`NodeHooks`, None while it has none); a leaf's beside the leaf, in :data:`LEAF_HOOKS` and
:data:`POST_ACCUMULATE_HOOKS` (its ``AccumulateGrad`` node is cached only weakly, as in torch).

A gradient a hook *keeps* (stores in a list, say) is in use by someone else, so, as torch's
reference counting decides, it is not reused in place afterwards: accumulation copies it.

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

__all__ = [
    "LEAF_HOOKS",
    "POST_ACCUMULATE_HOOKS",
    "NodeHooks",
    "call_node",
    "run_post",
    "run_post_accumulate",
    "run_pre",
    "run_pre_hooks",
]

HookDict = OrderedDict[int, Callable[..., Any]]

#: leaf tensor id -> (weak reference to the leaf, its hooks). Non-empty only while some leaf has one.
LEAF_HOOKS: dict[int, tuple[weakref.ref[Any], HookDict]] = {}
#: leaf tensor id -> (weak reference to the leaf, its post-accumulate-grad hooks).
POST_ACCUMULATE_HOOKS: dict[int, tuple[weakref.ref[Any], HookDict]] = {}


class NodeHooks(dict[int, HookDict]):
    """Every hook of one graph node, in its one slot (``Node._pre_hooks``, None while it has
    none, so a node without hooks costs the engine one ``is None``): by output number, the
    hooks of the tensors it made (the dict's entries); ``pre`` and ``post``, the node's own
    (``register_prehook``'s and ``register_hook``'s); ``dicts``, the hook dicts ``_register_hook_dict``
    added, by output number, run after the tensor's own."""

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
    if not hasattr(new, "_version") or not hasattr(new, "dtype"):
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
    """Apply the hooks of ``node``'s outputs (or of its leaf), in place in ``grads``, to the
    gradients about to be used. A gradient a hook kept is seen by the engine's reference count
    (``ownership.core.autograd.unseen``) and so is never reused in place afterwards."""
    table: dict[int, HookDict] = {}
    node_hooks: NodeHooks | None = node._pre_hooks
    if type(node).__name__ == "AccumulateGrad":  # a leaf's tensor hooks live beside the leaf
        variable = node.variable
        entry = LEAF_HOOKS.get(id(variable))
        if entry is not None and entry[0]() is variable:
            table = {0: entry[1]}
    elif node_hooks is not None:
        table = node_hooks
    for nr, chain in table.items():
        if chain:  # torch calls a tensor's hooks with None when its gradient is undefined
            grads[nr] = _run_chain(chain, grads[nr])
    if node_hooks is not None:
        for nr, extra in node_hooks.dicts:
            if extra:
                grads[nr] = _run_chain(extra, grads[nr])


def run_post_accumulate(variable: Any) -> None:
    """Call the post-accumulate-grad hooks of a leaf, in registration order, as torch calls
    them: a chain of tensor hooks (``_run_chain``: a hook that returns anything but
    ``None`` or the leaf is checked as a tensor hook's gradient, and the next hook sees it),
    after which a replaced leaf is torch's error, since these hooks return nothing."""
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
