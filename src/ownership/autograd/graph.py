"""``torch.autograd.graph``'s tools for what the graph keeps: saved-tensor hooks, version bumps.

- ``saved_tensors_hooks(pack_hook, unpack_hook)``: while active, every tensor an op saves for
  backward is handed to ``pack_hook`` and only its result is kept; backward calls
  ``unpack_hook`` on it to get a tensor back. The graph then no longer holds the tensor, so the
  version check that guards a saved tensor is the hooks' business: none is made.
- ``disable_saved_tensors_hooks(message)``: registering hooks inside raises ``message``.
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

from ownership.storage import is_engine_tensor

__all__ = ["disable_saved_tensors_hooks", "increment_version", "saved_tensors_hooks", "top"]

Hooks = tuple[Callable[[Any], Any], Callable[[Any], Any]]


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
        if not t._version_counter.inference:
            t._version_counter.bump()


def __getattr__(name: str) -> Any:
    """``graph.Node``, torch's base of every graph node (``isinstance(y.grad_fn, Node)``), read
    from ``ownership.autograd.node`` when first asked: that module saves tensors with this
    one's hooks, so it cannot be imported here at load time."""
    if name == "Node":
        from ownership.autograd.node import Node

        return Node
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
