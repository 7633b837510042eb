"""``torch.autograd.graph``'s tools for what the graph keeps: saved-tensor hooks, version bumps.

- ``saved_tensors_hooks(pack_hook, unpack_hook)``: while active, every tensor an op saves for
  backward is handed to ``pack_hook`` and only its result is kept; backward calls
  ``unpack_hook`` on it to get a tensor back. The graph then no longer holds the tensor, so the
  version check that guards a saved tensor is the hooks' business: none is made.
- ``disable_saved_tensors_hooks(message)``: registering hooks inside raises ``message``.
- ``allow_mutation_on_saved_tensors()``: inside, a tensor saved for backward may be written in
  place: the write first clones what was saved, and backward reads the clone (see the function).
- ``Node``: the base class of every graph node (``grad_fn``, ``next_functions``).
- ``increment_version(tensor)``: bump a tensor's version counter without writing to it (what a
  custom kernel that wrote through ``.data`` or numpy must do to be honest with autograd).

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> packed = []
>>> with saved_tensors_hooks(lambda t: packed.append(t) or len(packed) - 1, lambda i: packed[i]):
...     y = x.sin()
>>> y.sum().backward()
>>> len(packed), x.grad
(1, tensor([ 0.5403, -0.4161]))
"""

from __future__ import annotations

import contextlib
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from types import TracebackType
from typing import Any
from weakref import WeakKeyDictionary, WeakValueDictionary

from ownership.core import devices, op_registry
from ownership.core.op_table import CoreOps
from ownership.core.storage import is_engine_tensor

__all__ = [
    "CLONING",
    "allow_mutation_on_saved_tensors",
    "clone_saved_before_write",
    "disable_saved_tensors_hooks",
    "increment_version",
    "saved_tensors_hooks",
    "top",
]

Hooks = tuple[Callable[[Any], Any], Callable[[Any], Any]]

Node: type
"""torch's base of every graph node (``isinstance(y.grad_fn, Node)``):
:class:`ownership.core.autograd.node.Node`, which saves tensors with this module's hooks, given by
:func:`ownership.installation.install`."""


class _State(threading.local):
    def __init__(self) -> None:
        self.stack: list[Hooks] = []
        self.disabled: list[str] = []


_state = _State()


def top() -> Hooks | None:
    """The innermost active ``(pack_hook, unpack_hook)``, or None."""
    return _state.stack[-1] if _state.stack else None


class saved_tensors_hooks:
    """Context manager: pack every tensor saved for backward, unpack it when backward needs it."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        """Push the pair (refused with the disabling message inside a disabled block)."""
        if _state.disabled:
            raise RuntimeError(_state.disabled[-1])
        _state.stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Pop the pair."""
        _state.stack.pop()


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


class disable_saved_tensors_hooks:
    """Context manager: registering saved-tensor hooks inside raises ``error_message``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        """Disable (also when hooks are already active)."""
        if _state.stack:
            raise RuntimeError(self.error_message)
        _state.disabled.append(self.error_message)

    def __exit__(self, *exc: object) -> None:
        """Enable again."""
        _state.disabled.pop()


def increment_version(tensor: Any) -> None:
    """Bump the version counter of a tensor, or of each tensor of an iterable, by one."""
    tensors: Iterable[Any] = [tensor] if is_engine_tensor(tensor) else tensor
    for t in tensors:
        if t._version_counter.tracked:
            t._version_counter.bump()


# allow_mutation_on_saved_tensors, as torch 2.13 builds it (``torch/autograd/graph.py``): a pair
# of saved-tensor hooks that keeps each saved tensor behind a handle, and a check every in-place
# write makes first (torch's ``_CloneArgBeforeMutateMode``, a dispatch mode) that clones the
# saved tensors the written tensor may be, found by (address of element 0, version).

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
#: it (torch's dispatch modes, which are a thread's own); a list changed in place, so that a write
#: site binds it once and asks ``if CLONING`` (empty, nearly always: one test)
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
    """What every in-place write into ``tensor`` asks first while ``CLONING`` is not empty
    (``ownership.core.inplace_rules.run_inplace``, the in-place view ops): each open block clones the
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
    try:
        yield
    finally:
        CLONING.remove(entry)


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
