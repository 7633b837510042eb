"""Inference mode: no graph *and* no version counters, for code that will never meet autograd.

Inside ``inference_mode()`` grad mode is off, as under ``no_grad``, and more: every tensor created
there is an *inference tensor*. It has no version counter (reading ``_version`` raises), it can
never be saved for backward, and outside inference mode it cannot be written in place or made
to require grad. A view of a normal tensor taken inside inference mode stays a normal tensor
(its writes are still counted), but writing it in place later, in normal mode, while its base
requires grad, is refused. A view *of an inference tensor* is not tracked as a view at all: it
is a new inference leaf (no ``_base``, no grad). Outside inference mode an op whose tensor
operands are all inference tensors skips autograd (torch's inference tensors have no autograd
dispatch key). ``inference_mode(False)`` switches back (grad mode on).

This module only holds the switch (thread-local, like torch's); the storage layer asks it
whether a new version counter is an inference one.

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
from types import TracebackType
from typing import Any, TypeVar

from ownership.core import grad_mode
from ownership.core.argument_values import tensor_arg

__all__ = [
    "INFERENCE_SAVE_MESSAGE",
    "INPLACE_MESSAGE",
    "REQUIRES_GRAD_MESSAGE",
    "VERSION_MESSAGE",
    "inference_mode",
    "is_inference",
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
    """How many threads are in inference mode now (see :data:`THREADS`)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


THREADS = _Threads()
"""The number of threads whose inference mode is on, kept exact by :func:`_switch` under a
lock. A thread's mode is on only while it counts itself here, so ``THREADS.count == 0`` means
"off in this thread" without reading the thread-local switch (a slot read, where the
thread-local one is a generic lookup ten times dearer): every new tensor and every recorded op
asks, and almost no program ever enters inference mode. Readers ask
``THREADS.count and _state.enabled``."""
_THREADS_LOCK = threading.Lock()


def _switch(on: Any) -> None:
    """Set this thread's inference mode to ``on`` (kept as given: its truth is the mode),
    counted in :data:`THREADS`."""
    if bool(on) != bool(_state.enabled):
        with _THREADS_LOCK:
            THREADS.count += 1 if on else -1
    _state.enabled = on


def is_inference_mode_enabled() -> bool:
    """Whether the current thread is in inference mode."""
    return _state.enabled


def is_inference(input: Any) -> bool:
    """``torch.is_inference(t)``: whether ``t`` is an inference tensor (``t.is_inference()``)."""
    tensor_arg("is_inference", input)
    return bool(input.is_inference())


class inference_mode:
    """Context manager and decorator: run the block or function in inference mode (or, with
    ``mode=False``, out of it, grad mode on), restoring both modes afterwards."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self._prev: list[tuple[bool, bool]] = []

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode) and not isinstance(mode, bool):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self) -> None:
        """Switch inference mode (and grad mode, to its opposite) for the block."""
        self._prev.append((_state.enabled, grad_mode.is_grad_enabled()))
        _switch(self.mode)
        grad_mode._set(not self.mode)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Restore the modes remembered on entry (also when an exception propagates)."""
        enabled, grad = self._prev.pop()
        _switch(enabled)
        grad_mode._set(grad)

    def __call__(self, fn: F) -> F:
        """Wrap ``fn`` so that each call runs in this mode."""
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> inference_mode:
        """A new switch with the same mode (torch's API)."""
        return inference_mode(self.mode)
