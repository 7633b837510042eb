"""Grad mode: whether operations record a graph. Thread-local, like torch's.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` are context managers and decorators;
``set_grad_enabled(False)`` called alone also switches.

>>> with no_grad():
...     is_grad_enabled()
False
>>> is_grad_enabled()
True
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    enabled: bool = True


_state = _State()


def is_grad_enabled() -> bool:
    """Whether the current thread records operations for autograd."""
    return _state.enabled


def _set(mode: bool) -> None:
    _state.enabled = mode


class _GradMode:
    """Base of the grad-mode switches: a context manager that is also a decorator."""

    _mode: bool = True

    def __init__(self) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(_state.enabled)
        _state.enabled = self._mode

    def __exit__(self, *exc: object) -> None:
        _state.enabled = self._prev.pop()

    def __call__(self, fn: F) -> F:
        """Wrap ``fn`` so each call (each step of a generator) runs in this grad mode."""
        mode = self._mode
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(mode, fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = _state.enabled
            _state.enabled = mode
            try:
                return fn(*args, **kwargs)
            finally:
                _state.enabled = prev

        return wrapper  # type: ignore[return-value]


def _wrap_generator(mode: bool, fn: F) -> F:
    """torch's ``_wrap_generator``: every resumption of the generator runs in ``mode``."""

    def switched() -> Any:
        return enable_grad() if mode else no_grad()

    @functools.wraps(fn)
    def generator_context(*args: Any, **kwargs: Any) -> Any:
        gen = fn(*args, **kwargs)
        try:
            with switched():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with switched():
                        gen.close()
                    raise
                except BaseException as exc:
                    with switched():
                        response = gen.throw(exc)
                else:
                    with switched():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_context  # type: ignore[return-value]


class _NoParamGradMode(_GradMode):
    """A switch that is also a decorator without parentheses: ``@no_grad`` as ``@no_grad()``."""

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # a function: no ``__init__`` call


class no_grad(_NoParamGradMode):
    """Disable graph recording inside the block or decorated function."""

    _mode = False


class enable_grad(_NoParamGradMode):
    """Enable graph recording inside the block or decorated function."""

    _mode = True


class set_grad_enabled(_GradMode):
    """Set grad mode to ``mode``: immediately when called, restored on exit when used with ``with``."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        if not isinstance(mode, bool):
            raise TypeError(
                "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                f"{type(mode).__name__}"
            )
        self._mode = mode
        self._prev.append(_state.enabled)
        _state.enabled = self._mode

    def __enter__(self) -> None:
        pass  # ``__init__`` switched already

    def __call__(self, fn: F) -> F:
        _state.enabled = self._prev.pop()
        return super().__call__(fn)
