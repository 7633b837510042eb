"""``torch.autograd.graph``: saved-tensor hooks, ``Node`` and its hooks, version bumps.

What a learner reaches as ``torch.autograd.graph``; the machinery is in
:mod:`ownership.core.autograd.saved` (the hooks' stack the saved tensors read) and
:mod:`ownership.core.autograd.node` (``Node``). ``save_on_cpu`` (saved-tensor hooks over it) and
``increment_version`` (a bump without a write, for a custom kernel that wrote through ``.data``
or numpy) are here, torch's tools above the rules. A public name of torch's module that the engine
lacks raises the scope error (:mod:`ownership.scope`).

``allow_mutation_on_saved_tensors`` is here too, above core: it builds on core's saved-tensor
hooks and on its before-write observers (:data:`ownership.core.observers.BEFORE_WRITES`).

Hook registration is here, above core, as torch's ``Node.register_hook`` is in its
``torch/autograd/graph.py``: :class:`TensorHookMethods` (``Tensor.register_hook``,
``Tensor.register_post_accumulate_grad_hook``) and :class:`NodeHookMethods`
(``Node.register_prehook``, ``Node.register_hook``, ``Node._register_hook_dict``), set on the
classes by :func:`ownership.installation.install`, each returning a :class:`RemovableHandle`.
They fill the tables core's backward loop reads, and which decide when and in what order the
hooks run (:mod:`ownership.core.autograd.hooks`, the call sites). So are the rest of what torch's
nodes offer a program (:class:`NodeMethods`: ``metadata``, a call ``grad_fn(*grads)``, the
refusal to pickle; :func:`call_accumulator`).

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> isinstance(x.exp().grad_fn, Node)
True
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from itertools import count
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary, WeakValueDictionary

from ownership.core import grad_mode, observers, op_registry
from ownership.core.autograd import node as core_node
from ownership.core.autograd.accumulate_grad import accumulate
from ownership.core.autograd.hooks import (
    LEAF_HOOKS,
    POST_ACCUMULATE_HOOKS,
    HookDict,
    NodeHooks,
    run_post_accumulate,
)
from ownership.core.autograd.node import AccumulateGrad, Node
from ownership.core.autograd.saved import SAVED_TENSORS_HOOKS
from ownership.core.op_table import CoreOps
from ownership.core.storage import is_engine_tensor
from ownership.ops import devices
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


PACK_INPLACE_MESSAGE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack hook."
)


class saved_tensors_hooks:
    """Context manager: every tensor an op saves for backward inside is handed to ``pack_hook``
    and only its result is kept (so no version check is made); backward calls ``unpack_hook``
    on it to get a tensor back.

    >>> import ownership
    >>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
    >>> kept = []
    >>> with saved_tensors_hooks(lambda t: kept.append(t) or len(kept) - 1, lambda i: kept[i]):
    ...     y = x.sin()
    >>> y.sum().backward()
    >>> len(kept), x.grad
    (1, tensor([ 0.5403, -0.4161]))
    """

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        """Push the pair (refused with the disabling message inside a disabled block)."""
        if SAVED_TENSORS_HOOKS.disabled:
            raise RuntimeError(SAVED_TENSORS_HOOKS.disabled[-1])
        SAVED_TENSORS_HOOKS.stack.append((self._pack, self.unpack_hook))

    def _pack(self, tensor: Any) -> Any:
        """The pack hook called as torch calls it: under no_grad, refused if it writes its input."""
        version = tensor._version_counter.value
        with grad_mode.no_grad():
            packed = self.pack_hook(tensor)
        if tensor._version_counter.value != version:
            raise RuntimeError(PACK_INPLACE_MESSAGE)
        return packed

    def __exit__(self, *exc: object) -> None:
        """Pop the pair."""
        SAVED_TENSORS_HOOKS.stack.pop()


class disable_saved_tensors_hooks:
    """Context manager: registering saved-tensor hooks inside raises ``error_message``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        """Disable (also when hooks are already active)."""
        if SAVED_TENSORS_HOOKS.stack:
            raise RuntimeError(self.error_message)
        SAVED_TENSORS_HOOKS.disabled.append(self.error_message)

    def __exit__(self, *exc: object) -> None:
        """Enable again."""
        SAVED_TENSORS_HOOKS.disabled.pop()


class save_on_cpu(saved_tensors_hooks):
    """torch's ``save_on_cpu``: saved tensors packed as ``(device, tensor on the CPU)`` and moved
    back to their device for backward. Every engine tensor is on the CPU already, so the pack
    keeps the tensor itself (backward then reads it as it is by then, with no version check,
    as under any saved-tensor hooks); ``pin_memory=True`` packs a copy, as torch's
    ``empty(...)`` then ``copy_`` does, and refuses, with torch's error, to pin it when
    ``device_type`` is ``'cpu'`` (the one device whose ``is_available()`` is true).
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple[Any, Any]:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            devices.pin_memory(device_type == "cpu")  # torch.<device_type>.is_available()
            ops: CoreOps[Any] = op_registry.ops
            packed = ops.empty(tensor.size(), dtype=tensor.dtype)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


def increment_version(tensor: Any) -> None:
    """Bump the version counter of a tensor, or of each tensor of an iterable, by one."""
    tensors: Iterable[Any] = [tensor] if is_engine_tensor(tensor) else tensor
    for t in tensors:
        if t._version_counter.tracked:
            t._version_counter.bump()


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


def registered_hooks(tensor: Any) -> list[Callable[..., Any]]:
    """The hooks ``tensor.register_hook`` gave ``tensor`` that are still registered: its leaf's,
    or those of its ``grad_fn``'s output."""
    node = tensor._grad_fn
    if node is None:
        entry = LEAF_HOOKS.get(id(tensor))
        return list(entry[1].values()) if entry is not None and entry[0]() is tensor else []
    table: NodeHooks | None = node._pre_hooks
    return list(table.get(tensor._output_nr, {}).values()) if table is not None else []


class TensorHookMethods:
    """The Tensor's hook registration, set on :class:`~ownership.core.tensor.Tensor` by
    ``ownership.installation.install()``: a non-leaf's hooks go to its ``grad_fn``'s
    ``NodeHooks`` by output number, a leaf's to core's
    :data:`~ownership.core.autograd.hooks.LEAF_HOOKS` (its ``AccumulateGrad`` node is cached only
    weakly, as in torch)."""

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed (see autograd.hooks)."""
        tensor: Any = self
        if not tensor.requires_grad:
            raise RuntimeError(NO_GRAD_MESSAGE)
        # torch keeps a tensor's hooks in one dict, made and given to its grad_fn at the first
        # registration (reading grad_fn then, which remakes a stale view's): a later hook joins
        # that dict without reading grad_fn, so a view's hook registered after its base was
        # written, before its grad_fn is read again, stays with the old node (or its leaf's)
        old = tensor._grad_fn
        if old is None:
            entry = LEAF_HOOKS.get(id(tensor))
            if entry is not None and entry[0]() is tensor:
                return add(entry[1], hook)
            _leaf_hooks(LEAF_HOOKS, tensor)  # made before grad_fn is read (may raise)
        else:
            chains = hooks_of(old)
            if tensor._output_nr in chains:
                return add(chains[tensor._output_nr], hook)
            chains[tensor._output_nr] = OrderedDict()  # made before grad_fn is read (may raise)
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
    ``ownership.installation.install()``; the hooks go to the node's one slot ``_pre_hooks``
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


class NodeMethods:
    """What torch's graph nodes offer a program beyond the engine's own use, set on
    :class:`~ownership.core.autograd.node.Node` by ``ownership.installation.install()``:
    ``grad_fn.metadata``, a call of the node on gradients (``grad_fn(*grads)``), the refusal to
    copy or pickle it, its ``repr`` and ``dir()`` as torch's. The engine runs a node by its
    ``apply``, never by a call."""

    @property
    def next_functions(self: Any) -> tuple[tuple[Any, int], ...]:
        """torch's ``next_functions``: per input, ``(node, input_nr)`` or ``(None, 0)``, each node
        as the user sees it (core's seam ``shown``); a new tuple at every read, as torch's."""
        return tuple([(core_node.shown(fn), nr) for fn, nr in self._edges])

    def _sequence_nr(self: Any) -> int:
        """torch's ``_sequence_nr()``: nodes made later have larger numbers; an
        ``AccumulateGrad``'s is the largest (torch's ``UINT64_MAX``)."""
        return 2**64 - 1 if isinstance(self, AccumulateGrad) else int(self._seq)

    @property
    def metadata(self: Any) -> dict[str, Any]:
        """torch's ``grad_fn.metadata``: a dict for the user's notes, the same one on every
        read. Made at the first read, as torch makes it (most nodes are never asked)."""
        try:
            return self._metadata  # type: ignore[no-any-return]
        except AttributeError:
            meta: dict[str, Any] = {}
            self._metadata = meta
            return meta

    @metadata.setter
    def metadata(self: Any, value: dict[str, Any]) -> None:
        self._metadata = value

    def __call__(self: Any, *grads: Any) -> Any:
        """``grad_fn(*grads)``: the node run on one gradient per output of its forward
        (torch's ``TypeError`` for another number of them; ``None`` for each input when no
        gradient is defined)."""
        _check_arity(self, grads)
        if all(g is None for g in grads):  # no gradient defined: none flows on (torch's nodes)
            out: Sequence[Any] = [None] * len(self._edges)
        else:
            out = self.apply(tuple(grads))
        return out[0] if len(out) == 1 else tuple(out)

    def __reduce_ex__(self: Any, protocol: Any) -> Any:
        """torch's refusal to copy or pickle a graph node (``copy.copy``, ``deepcopy``,
        ``pickle``): a node is part of one graph."""
        raise TypeError(f"cannot pickle '{self.name().rsplit('::', 1)[-1]}' object")

    def __repr__(self: Any) -> str:
        """torch's: ``<MulBackward0 object at 0x...>``."""
        return f"<{self.name().rsplit('::', 1)[-1]} object at {hex(id(self))}>"

    def __dir__(self: Any) -> list[str]:
        """What torch lists: no engine-private name (``_ctx``, ``_saved``, ``_seq``, ...)."""
        return sorted(n for n in object.__dir__(self) if n[0] != "_" or n[:2] == "__")


def call_accumulator(self: AccumulateGrad, *grads: Any) -> Any:
    """``acc(grad)``, an ``AccumulateGrad`` called: accumulates ``grad`` into the leaf's ``.grad``
    and runs its post-accumulate-grad hooks, as torch's node does when called (the engine
    accumulates without this call: ``ownership.core.autograd.engine``)."""
    _check_arity(self, grads)
    accumulate(self.variable, grads[0], grad_mode._state.enabled, 0)
    if grads[0] is not None:
        run_post_accumulate(self.variable)
    return ()


def _check_arity(node: Node, grads: tuple[Any, ...]) -> None:
    """torch's refusal of a call of a node with a number of gradients other than its
    forward's outputs."""
    if len(grads) != node.num_outputs:
        raise TypeError(f"expected {node.num_outputs} arguments, got {len(grads)} instead")


# allow_mutation_on_saved_tensors, as torch 2.13 builds it (``torch/autograd/graph.py``): a pair
# of saved-tensor hooks that keeps each saved tensor behind a handle, and a check every in-place
# write makes first (torch's ``_CloneArgBeforeMutateMode``, a dispatch mode) that clones the
# saved tensors the written tensor may be, found by (address of element 0, version). The check
# is a before-write observer of core (:data:`ownership.core.observers.BEFORE_WRITES`), there
# while a block is open.

NESTED_MESSAGE = "allow_mutation_on_saved_tensors contexts cannot be nested"
# torch's two string pieces are joined without a space ("contextin"): its message, word for word
OUTSIDE_MESSAGE = (
    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
    "in which the graph was originally recorded."
)

#: whether an ``allow_mutation_on_saved_tensors`` block is open (one for all threads, as torch's
#: ``_allow_mutation_on_saved_tensors_enabled``); a refused nested block turns it off
_allow_mutation_on_saved_tensors_enabled = False
#: the contexts whose clone-before-write is on, innermost last, each with the thread that opened
#: it (torch's dispatch modes, which are a thread's own); while it is not empty,
#: :func:`clone_saved_before_write` is one of core's before-write observers
CLONING: list[tuple[int, _AllowMutationOnSavedContext]] = []

_TID = tuple[int, int, int]  # (id of the saved tensor object, address, version)
_SID = tuple[int, int]  # (address of element 0, version): what a write is matched by


class _Handle:
    """What the pack hook returns for a saved tensor: the graph holds it, the context only
    weakly, so the context forgets a saved tensor once its graph is freed."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors()`` yields (torch's class, torch's fields): the
    saved tensors still as saved (``original``), those cloned before a write (``cloned``), both by
    handle; the handle of each saved tensor object at a version (``tid_to_weakhandle``), and the
    saved tensors by address and version (``sid_to_tid``). Emptied when the block ends."""

    def __init__(self) -> None:
        self.cloned: MutableMapping[_Handle, Any] = WeakKeyDictionary()
        self.original: MutableMapping[_Handle, Any] = WeakKeyDictionary()
        self.tid_to_weakhandle: MutableMapping[_TID, _Handle] = WeakValueDictionary()
        self.sid_to_tid: defaultdict[_SID, set[_TID]] = defaultdict(set)

    def clear(self) -> None:
        """Forget everything (the block ended)."""
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor: Any) -> _Handle:
        """The pack hook: keep ``tensor`` behind a handle, one per tensor object and version."""
        sid = (tensor.data_ptr(), tensor._version)
        tid = (id(tensor), *sid)
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:  # the same tensor at the same version saved again: the same handle
            handle = self.tid_to_weakhandle[tid] = _Handle()
            self.original[handle] = tensor
        return handle

    def unpack(self, handle: _Handle) -> Any:
        """The unpack hook: the clone if the tensor was written since, else the tensor; torch's
        AssertionError outside the block that recorded the graph."""
        if not _allow_mutation_on_saved_tensors_enabled:
            raise AssertionError(OUTSIDE_MESSAGE)
        cloned = self.cloned.get(handle)
        if cloned is not None:
            return cloned
        if handle not in self.original:
            raise AssertionError(OUTSIDE_MESSAGE)
        return self.original[handle]

    def clone_before_write(self, sid: _SID) -> None:
        """Clone every saved tensor still alive saved at address and version ``sid`` (once
        each), so that backward reads the values it had when saved."""
        for tid in self.sid_to_tid.get(sid, ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:  # freed by backward, or cloned already
                continue
            self.cloned[handle] = self.original.pop(handle).detach().clone()


def clone_saved_before_write(tensor: Any) -> None:
    """What every in-place write into ``tensor`` asks first while ``CLONING`` is not empty (a
    before-write observer, :func:`ownership.core.observers.before_write`, called by
    ``ownership.core.inplace_rules.run_inplace``, the in-place view ops, the resizes and ``out=``):
    each open block clones the
    saved tensors that ``tensor`` may be, as torch matches them: by the address of element 0
    and the version. So a view that starts where the saved tensor starts is matched (a write
    through ``b.view_as(b)``, ``b[0]``, ``b.t()``, ``b.detach()``), a view that starts further
    on is not (``b[1]``: backward then silently reads the written values, as torch's), and an
    inference tensor refuses, as its ``_version`` does. Only the blocks this thread opened clone."""
    thread = threading.get_ident()  # a block open in another thread does not see this write
    mine = [ctx for opened_by, ctx in reversed(CLONING) if opened_by == thread]
    if mine:
        sid = (tensor.data_ptr(), tensor._version)
        for ctx in mine:
            ctx.clone_before_write(sid)


@contextlib.contextmanager
def _cloning(ctx: _AllowMutationOnSavedContext) -> Iterator[None]:
    entry = (threading.get_ident(), ctx)
    CLONING.append(entry)
    if clone_saved_before_write not in observers.BEFORE_WRITES:
        observers.BEFORE_WRITES.append(clone_saved_before_write)
    try:
        yield
    finally:
        CLONING.remove(entry)
        if not CLONING:
            observers.BEFORE_WRITES.remove(clone_saved_before_write)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Context manager: inside, a tensor saved for backward may be modified in place.

    Every tensor an op saves is kept by a pair of saved-tensor hooks (so, as under any hooks, no
    version check is made at unpack), and every in-place write first clones the saved tensors
    it is about to change (:func:`clone_saved_before_write`). Backward then reads the values
    the tensors had when saved, and the written tensor's ``_version`` still moves. The graph
    must be backpropagated inside the same block: outside it (or in another block) unpacking
    raises torch's AssertionError. Saved-tensor hooks opened inside take over the saves made
    there; a block opened inside another raises a RuntimeError and leaves the outer one unable
    to backward (as torch's). Yields the context that keeps the saved tensors, emptied at exit.

    >>> import ownership
    >>> a = ownership.tensor([0.5, 1.0], requires_grad=True)
    >>> with allow_mutation_on_saved_tensors():
    ...     b = a.clone()
    ...     out = (b**2).sum()  # saves b
    ...     b += 1  # the saved b is cloned, then b is written
    ...     out.backward()
    >>> a.grad, b._version
    (tensor([1., 2.]), 1)
    """
    global _allow_mutation_on_saved_tensors_enabled
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack), _cloning(ctx):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError(NESTED_MESSAGE)
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False


__getattr__ = module_getattr("torch.autograd.graph", __name__)  # a name torch has: the scope error
