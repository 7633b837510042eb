"""The registry through which Tensor methods reach the ops: :data:`OPS`, filled when the package loads.

The tensor layer sits below :mod:`ownership.ops`, so it may not import it; its methods look each
op up here by name at call time, and each ops module installs its functions with ``register()``.
Every op installed is wrapped by :func:`quiet` (numpy's floating-point warnings silenced), so
every method call passes through that one rule.

>>> OPS["add"].__module__
'ownership.ops.arithmetic'
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np

if TYPE_CHECKING:
    from ownership._tensor import Tensor

P = ParamSpec("P")
R = TypeVar("R")


def _ignoring_state() -> tuple[Any, Any]:
    """numpy's error-state context variable and its "ignore everything" value, or Nones.

    ``np.errstate(all="ignore")`` rebuilds numpy's error state on each entry (about 2 us, as
    much as a small op). numpy 2 keeps that state in a context variable: the ignoring value is
    built once, and each op only sets and resets the variable. numpy 1.x: ``np.errstate``.
    """
    try:
        from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
            _extobj_contextvar as state,
        )
    except ImportError:
        return None, None
    with np.errstate(all="ignore"):
        return state, state.get()


_STATE, _IGNORE = _ignoring_state()


def quiet(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with numpy's floating-point reports off: inf and nan are results, as in torch.

    ``inf * 0``, an overflow, the mean of an empty tensor: torch computes them silently, so no
    numpy ``RuntimeWarning`` (or ``FloatingPointError`` under ``np.seterr(all="raise")``) may
    reach the user. The caller's numpy error state is restored on return.
    """

    @functools.wraps(fn)
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        if _STATE is None:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        token = _STATE.set(_IGNORE)
        try:
            return fn(*args, **kwargs)
        finally:
            _STATE.reset(token)

    return inner


OPS: dict[str, Callable[..., Any]] = {}
"""Op implementations by name, filled in by :mod:`ownership.ops` when the package is imported."""


def op(name: str) -> Callable[..., Tensor]:
    """The op registered as ``name`` (a ``KeyError`` before :mod:`ownership.ops` is imported)."""
    return OPS[name]


def op_many(name: str) -> Callable[..., tuple[Tensor, ...]]:
    """The op registered as ``name`` that returns several tensors (``unbind``, ``split``...)."""
    return OPS[name]
