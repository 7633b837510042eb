"""``torch.autograd.graph``'s saved-tensor hooks: while ``saved_tensors_hooks(pack_hook,
unpack_hook)`` is active, every tensor an op saves is handed to ``pack_hook`` and only its result
is kept (no version check then); backward calls ``unpack_hook`` on it. Inside
``disable_saved_tensors_hooks(message)``, registering hooks raises ``message``.

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
from collections.abc import Callable
from types import TracebackType
from typing import Any

__all__ = ["disable_saved_tensors_hooks", "saved_tensors_hooks", "top"]

Hooks = tuple[Callable[[Any], Any], Callable[[Any], Any]]

Node: type
"""torch's base of every graph node, :class:`ownership.core.autograd.node.Node`, given by
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
