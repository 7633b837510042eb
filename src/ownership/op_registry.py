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
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np

if TYPE_CHECKING:
    from ownership.tensor import Tensor

P = ParamSpec("P")
R = TypeVar("R")


class _Inside(threading.local):
    """Whether this thread is already inside an op (then numpy is already quiet)."""

    op = False


_inside = _Inside()


def quiet(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with numpy's floating-point reports off: inf and nan are results, as in torch.

    ``inf * 0``, an overflow, the mean of an empty tensor: torch computes them silently, so no
    numpy ``RuntimeWarning`` (or ``FloatingPointError`` under ``np.seterr(all="raise")``) may
    reach the user. Only the outermost op of a thread pays for ``np.errstate``.
    """

    @functools.wraps(fn)
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        if _inside.op:
            return fn(*args, **kwargs)
        _inside.op = True
        try:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        finally:
            _inside.op = False

    return inner


OPS: dict[str, Callable[..., Any]] = {}
"""Op implementations by name, filled in by :mod:`ownership.ops` when the package is imported."""


def op(name: str) -> Callable[..., Tensor]:
    """The op registered as ``name`` (a ``KeyError`` before :mod:`ownership.ops` is imported)."""
    return OPS[name]


def op_many(name: str) -> Callable[..., tuple[Tensor, ...]]:
    """The op registered as ``name`` that returns several tensors (``unbind``, ``split``...)."""
    return OPS[name]
