"""``torch.autograd.graph``'s tools for what the graph keeps: saved-tensor hooks, version bumps.

- ``saved_tensors_hooks(pack_hook, unpack_hook)``: while active, every tensor an op saves for
  backward is handed to ``pack_hook`` and only its result is kept; backward calls
  ``unpack_hook`` on it to get a tensor back. The graph then no longer holds the tensor, so the
  version check that guards a saved tensor is the hooks' business: none is made.
- ``disable_saved_tensors_hooks(message)``: registering hooks inside raises ``message``.
- ``allow_mutation_on_saved_tensors()`` builds on these hooks and on the before-write observers
  (:data:`ownership.core.observers.BEFORE_WRITES`), above core: ``ownership.autograd.graph``.
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

import threading
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any

from ownership.core import devices, op_registry
from ownership.core.op_table import CoreOps
from ownership.core.storage import is_engine_tensor

__all__ = [
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
