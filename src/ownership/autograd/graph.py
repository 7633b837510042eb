"""``torch.autograd.graph``: saved-tensor hooks, ``Node`` and its hooks, version bumps.

What a learner reaches as ``torch.autograd.graph``; the machinery is in
:mod:`ownership.core.autograd.graph` (the hooks' stack the saved tensors read) and
:mod:`ownership.core.autograd.node` (``Node``). A public name of torch's module that the engine
lacks raises the scope error (:mod:`ownership.scope`).

Hook registration is here, above core, as torch's ``Node.register_hook`` is in its
``torch/autograd/graph.py``: :class:`TensorHookMethods` (``Tensor.register_hook``,
``Tensor.register_post_accumulate_grad_hook``) and :class:`NodeHookMethods`
(``Node.register_prehook``, ``Node.register_hook``, ``Node._register_hook_dict``), set on the
classes by :func:`ownership.installation.install`, each returning a :class:`RemovableHandle`.
They fill the tables core's backward loop reads, and which decide when and in what order the
hooks run (:mod:`ownership.core.autograd.hooks`, the call sites).

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> isinstance(x.exp().grad_fn, Node)
True
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from itertools import count
from typing import TYPE_CHECKING, Any

from ownership.core.autograd.graph import (
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    increment_version,
    save_on_cpu,
    saved_tensors_hooks,
)
from ownership.core.autograd.hooks import (
    LEAF_HOOKS,
    POST_ACCUMULATE_HOOKS,
    HookDict,
    NodeHooks,
)
from ownership.core.autograd.node import Node
from ownership.scope import module_getattr

if TYPE_CHECKING:
    from ownership.core.tensor import Tensor

__all__ = [
    "Node",
    "RemovableHandle",
    "allow_mutation_on_saved_tensors",
    "disable_saved_tensors_hooks",
    "increment_version",
    "save_on_cpu",
    "saved_tensors_hooks",
]

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


def add(hooks: HookDict, fn: Callable[..., Any]) -> RemovableHandle:
    """Register ``fn`` last in ``hooks``; its handle removes it."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


def hooks_of(node: Any) -> NodeHooks:
    """The ``NodeHooks`` of ``node`` (its slot ``_pre_hooks``), made at the first registration."""
    table = node._pre_hooks
    if table is None:
        table = node._pre_hooks = NodeHooks()
    return table  # type: ignore[no-any-return]


def _leaf_hooks(table: dict[int, tuple[weakref.ref[Any], HookDict]], tensor: Any) -> HookDict:
    """The hook dict of a leaf in ``table``, created on first use, dropped with the leaf."""
    key = id(tensor)
    entry = table.get(key)
    if entry is None or entry[0]() is not tensor:
        ref = weakref.ref(tensor, lambda _: table.pop(key, None))
        entry = table[key] = (ref, OrderedDict())
    return entry[1]


class TensorHookMethods:
    """The Tensor's hook registration, set on :class:`~ownership.core.tensor.Tensor` by
    :func:`ownership.installation.install`: a non-leaf's hooks go to its ``grad_fn``'s
    ``NodeHooks`` by output number, a leaf's to core's :data:`~ownership.core.autograd.hooks.LEAF_HOOKS`
    (its ``AccumulateGrad`` node is cached only weakly, as in torch)."""

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed (see autograd.hooks)."""
        tensor: Any = self
        if not tensor.requires_grad:
            raise RuntimeError(NO_GRAD_MESSAGE)
        node = tensor._node()
        if node is None:
            return add(_leaf_hooks(LEAF_HOOKS, tensor), hook)
        return add(hooks_of(node).setdefault(tensor._output_nr, OrderedDict()), hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> Any:
        """Call ``hook(self)`` after a backward has updated this leaf's ``.grad``."""
        tensor: Any = self
        if not tensor.requires_grad:
            raise RuntimeError(NO_GRAD_MESSAGE)
        if tensor._node() is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        return add(_leaf_hooks(POST_ACCUMULATE_HOOKS, tensor), hook)


class NodeHookMethods:
    """A graph node's hook registration, set on :class:`~ownership.core.autograd.node.Node` by
    :func:`ownership.installation.install`; the hooks go to the node's one slot ``_pre_hooks``
    (a :class:`~ownership.core.autograd.hooks.NodeHooks`)."""

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


__getattr__ = module_getattr("torch.autograd.graph", __name__)  # a name torch has: the scope error
