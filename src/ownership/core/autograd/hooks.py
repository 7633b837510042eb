"""Tensor hooks: functions the backward pass calls with a tensor's gradient, as torch's do.

- ``t.register_hook(fn)``: ``fn(grad)`` runs when the gradient of ``t`` has been summed, before
  it flows on (a non-leaf) or is accumulated into ``.grad`` (a leaf); returning a tensor replaces
  the gradient, returning ``None`` keeps it. Hooks run in registration order, each seeing the
  previous one's result, and always before ``retain_grad`` stores a non-leaf's ``.grad``.
- ``t.register_post_accumulate_grad_hook(fn)``: ``fn(t)`` runs on a leaf after its ``.grad``
  has been updated.

A non-leaf's hooks live on its ``grad_fn`` (in its ``NodeHooks``, keyed by output number);
a leaf's beside the leaf (its ``AccumulateGrad`` node is cached only weakly, as in torch). Both
are removed by the :class:`RemovableHandle` that registration returns. The hooks of a node
itself (``grad_fn.register_hook``) are ``ownership.core.autograd.node_hooks``'.

A gradient a hook *keeps* (stores in a list, say) is in use by someone else, so, as torch's
reference counting decides, it is not reused in place afterwards: accumulation copies it.

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> handle = x.register_hook(lambda g: g * 10)
>>> (x * 3).sum().backward()
>>> x.grad
tensor([30., 30.])
>>> handle.remove()
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from itertools import count
from typing import Any

__all__ = [
    "LEAF_HOOKS",
    "POST_ACCUMULATE_HOOKS",
    "NodeHooks",
    "RemovableHandle",
    "register_hook",
    "register_post_accumulate_grad_hook",
    "run_post_accumulate",
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
    (``ownership.core.autograd.node_hooks``); ``dicts``, the hook dicts ``_register_hook_dict``
    added, by output number, run after the tensor's own."""

    __slots__ = ("dicts", "post", "pre")

    def __init__(self) -> None:
        super().__init__()
        self.pre: HookDict = OrderedDict()
        self.post: HookDict = OrderedDict()
        self.dicts: list[tuple[int, dict[Any, Callable[..., Any]]]] = []


def hooks_of(node: Any) -> NodeHooks:
    """The ``NodeHooks`` of ``node``, made at the first registration."""
    table = node._pre_hooks
    if table is None:
        table = node._pre_hooks = NodeHooks()
    return table  # type: ignore[no-any-return]


NO_GRAD_MESSAGE = "cannot register a hook on a tensor that doesn't require gradient"


class RemovableHandle:
    """What registering a hook returns: ``remove()`` unregisters it (also as a context manager)."""

    _ids = count()

    def __init__(self, hooks: dict[int, Any], *extra: dict[int, Any]) -> None:
        self.hooks_dict_ref = weakref.ref(hooks)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        """Unregister the hook (and its entries in ``extra`` dicts); removing twice does nothing."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _leaf_hooks(table: dict[int, tuple[weakref.ref[Any], HookDict]], tensor: Any) -> HookDict:
    """The hook dict of a leaf in ``table``, created on first use, dropped with the leaf."""
    key = id(tensor)
    entry = table.get(key)
    if entry is None or entry[0]() is not tensor:
        ref = weakref.ref(tensor, lambda _: table.pop(key, None))
        entry = table[key] = (ref, OrderedDict())
    return entry[1]


def add(hooks: HookDict, fn: Callable[..., Any]) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


def register_hook(tensor: Any, fn: Callable[[Any], Any]) -> RemovableHandle:
    """``Tensor.register_hook``: a gradient hook on a leaf or on a non-leaf's ``grad_fn``."""
    if not tensor.requires_grad:
        raise RuntimeError(NO_GRAD_MESSAGE)
    node = tensor._node()
    if node is None:
        return add(_leaf_hooks(LEAF_HOOKS, tensor), fn)
    return add(hooks_of(node).setdefault(tensor._output_nr, OrderedDict()), fn)


def register_post_accumulate_grad_hook(tensor: Any, fn: Callable[[Any], Any]) -> RemovableHandle:
    """``Tensor.register_post_accumulate_grad_hook``: ``fn(leaf)`` after its ``.grad`` is updated."""
    if not tensor.requires_grad:
        raise RuntimeError(NO_GRAD_MESSAGE)
    if tensor._node() is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return add(_leaf_hooks(POST_ACCUMULATE_HOOKS, tensor), fn)


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
