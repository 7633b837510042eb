"""What a custom Function's ``ctx`` is: torch's two halves of it.

- :class:`FunctionCtx`, torch's Python class of the same name: the methods forward calls
  (``save_for_backward``, ``mark_dirty``, ``mark_non_differentiable``, ``set_materialize_grads``,
  ``save_for_forward``, the deprecated ``mark_shared_storage``). Each only sets an attribute
  (``to_save``, ``dirty_tensors``, ``non_differentiable``, ``materialize_grads``), as torch's do.
- :class:`FunctionBase`, the part torch writes in C++ (``torch._C._FunctionBase``): those
  attributes themselves, as torch shows them. ``to_save``, ``dirty_tensors`` and
  ``non_differentiable`` read ``None`` until set and again once forward returned (the node keeps
  only what it saved), and so does ``saved_for_forward``; ``materialize_grads`` may be set (a bool) but not read; ``saved_tensors``
  unpacks what was saved (each checked against its version), ``saved_variables`` is its
  deprecated name; ``requires_grad`` is always True.

>>> import ownership
>>> class Double(ownership.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         print(len(ctx.to_save), ctx.dirty_tensors)
...         return x * 2
...     @staticmethod
...     def backward(ctx, g):
...         return g * 2
>>> y = Double.apply(ownership.ones(2, requires_grad=True))
1 None
>>> y.grad_fn.to_save is None, len(y.grad_fn.saved_tensors)
(True, 1)
>>> y.grad_fn.materialize_grads
Traceback (most recent call last):
AttributeError: attribute 'materialize_grads' of 'torch._C._FunctionBase' objects is not readable
"""

from __future__ import annotations

import warnings
from typing import Any

from ownership.core.autograd.saved import FREED_MESSAGE, SavedTensor
from ownership.core.storage import is_engine_tensor

__all__ = ["FunctionBase", "FunctionCtx", "as_tuple"]


def _kept_until_forward_returns(slot: str, method: str) -> Any:
    """A ctx attribute that holds what ``method`` was given, until forward returns (then
    ``None``, which ``del`` also sets), read and written through the slot ``slot``."""

    def read(ctx: Any) -> Any:
        return getattr(ctx, slot)

    def write(ctx: Any, value: Any) -> None:
        setattr(ctx, slot, value)

    def clear(ctx: Any) -> None:
        setattr(ctx, slot, None)

    return property(read, write, clear, f"What ``{method}`` was given, until forward returns.")


class FunctionCtx:
    """The methods of a custom Function's ``ctx`` (torch's ``FunctionCtx``): each sets the
    attribute torch's sets; the node reads them once forward returns."""

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward; their versions are checked when unpacked."""
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep tensors for a forward-mode ``jvp`` (tensors or ``None`` only)."""
        for t in tensors:
            if not (is_engine_tensor(t) or t is None):
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; you should "
                    "save non-tensors as attributes on ctx."
                )
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        """Declare inputs modified in place by forward."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs: Any) -> None:
        """Deprecated, and does nothing (torch's ``FutureWarning`` says why)."""
        warnings.warn(
            "`mark_shared_storage` is deprecated. Tensors with shared storages are "
            "automatically tracked. Note that calls to `set_()` are not tracked",
            FutureWarning,
            stacklevel=2,
        )

    def mark_non_differentiable(self, *args: Any) -> None:
        """Declare outputs that get no gradient: they come back without history (an input
        that requires grad as a detached alias), and backward gets zeros or ``None`` for them."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward gets zeros (the default) or ``None`` for an output that got no
        gradient (unused, or marked non-differentiable)."""
        self.materialize_grads = value


def as_tuple(value: Any, name: str) -> tuple[Any, ...]:
    """``ctx.<name>`` once forward returned: a tuple (``None`` is empty), else torch's error
    (whose message ends where its format lost the type name)."""
    if value is None:
        return ()
    if not isinstance(value, tuple):
        raise RuntimeError(
            f"autograd internal error: {name} attribute is expected to be a tuple but is "
        )
    return value


class FunctionBase:
    """The attributes of a custom Function's node and ctx (torch's ``_C._FunctionBase``), kept in
    the slots of :class:`~ownership.autograd.function.BackwardFunction`."""

    _to_save: Any
    _dirty: Any
    _non_diff: Any
    _materialize: bool
    _materialize_non_diff: bool
    _for_forward: Any
    _saved: list[SavedTensor | None] | None
    _freed: bool

    to_save = _kept_until_forward_returns("_to_save", "save_for_backward")
    dirty_tensors = _kept_until_forward_returns("_dirty", "mark_dirty")
    non_differentiable = _kept_until_forward_returns("_non_diff", "mark_non_differentiable")
    saved_for_forward = _kept_until_forward_returns("_for_forward", "save_for_forward")

    def _no_read(self) -> bool:
        raise AttributeError(
            "attribute 'materialize_grads' of 'torch._C._FunctionBase' objects is not readable"
        )

    def _set_materialize(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(
                "set_materialize_grads received an invalid combination of arguments - got (), "
                "but expected (bool)"
            )
        self._materialize = value

    materialize_grads = property(_no_read, _set_materialize, doc="Set only (torch's rule).")

    @property
    def _materialize_non_diff_grads(self) -> bool:
        """Whether an output marked non-differentiable (or of an integer type) that got no
        gradient gets zeros too (when ``materialize_grads``); a bool, True by default."""
        return self._materialize_non_diff

    @_materialize_non_diff_grads.setter
    def _materialize_non_diff_grads(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(
                "set_materialize_non_diff_grads received an invalid combination of arguments - "
                "got (), but expected (bool)"
            )
        self._materialize_non_diff = value

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The saved tensors, each checked against the version it had when saved; in forward,
        none yet, or what ``save_for_forward`` was given (torch's order)."""
        if self._for_forward is not None:
            return self._for_forward  # type: ignore[no-any-return]
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        if self._saved is None:
            return ()
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    @property
    def saved_variables(self) -> tuple[Any, ...]:
        """``saved_tensors`` under its old name, with torch's ``DeprecationWarning``."""
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2
        )
        return self.saved_tensors

    @property
    def requires_grad(self) -> bool:
        """Always True, as torch's."""
        return True
