"""Inference mode: no graph *and* no version counters, for code that will never meet autograd.

Inside ``inference_mode()`` grad mode is off and every tensor created is an *inference tensor*:
no version counter, never saved for backward, and outside the mode never written in place nor
made to require grad. This module holds the switch (thread-local) and torch's messages.

>>> with inference_mode():
...     is_inference_mode_enabled()
True
>>> is_inference_mode_enabled()
False
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ownership.core import grad_mode

__all__ = [
    "INFERENCE_SAVE_MESSAGE",
    "INPLACE_MESSAGE",
    "REQUIRES_GRAD_MESSAGE",
    "VERSION_MESSAGE",
    "inference_mode",
    "is_inference_mode_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])

VERSION_MESSAGE = "Inference tensors do not track version counter."
INPLACE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
REQUIRES_GRAD_MESSAGE = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)
INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


class _State(threading.local):
    enabled: bool = False


_state = _State()


class _Threads:
    def __init__(self) -> None:
        self.count = 0


THREADS = _Threads()
"""How many threads are in inference mode (kept by :func:`_switch`): readers ask
``THREADS.count and _state.enabled``."""
_THREADS_LOCK = threading.Lock()


def _switch(on: Any) -> None:
    """Set this thread's inference mode to ``on`` (its truth is the mode), counted in THREADS."""
    if bool(on) != bool(_state.enabled):
        with _THREADS_LOCK:
            THREADS.count += 1 if on else -1
    _state.enabled = on


def is_inference_mode_enabled() -> bool:
    """Whether the current thread is in inference mode."""
    return _state.enabled


class inference_mode:
    """Context manager and decorator: run in inference mode (``mode=False``: out of it)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self._prev: list[tuple[bool, bool]] = []

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode) and not isinstance(mode, bool):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self) -> None:
        self._prev.append((_state.enabled, grad_mode.is_grad_enabled()))
        _switch(self.mode)
        grad_mode._set(not self.mode)

    def __exit__(self, *exc: object) -> None:
        enabled, grad = self._prev.pop()
        _switch(enabled)
        grad_mode._set(grad)

    def __call__(self, fn: F) -> F:
        """Wrap ``fn`` so each call runs in this mode."""
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> inference_mode:
        """A new switch with the same mode (torch's API)."""
        return inference_mode(self.mode)
