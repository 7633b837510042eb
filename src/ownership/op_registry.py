"""The registry through which Tensor methods reach the ops: :data:`OPS`, filled when the package loads.

The tensor layer sits below :mod:`ownership.ops`, so it may not import it; its methods look each
op up here by name at call time, and each ops module installs its functions with ``register()``.

>>> OPS["add"].__module__
'ownership.ops.arithmetic'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ownership.tensor import Tensor

OPS: dict[str, Callable[..., Any]] = {}
"""Op implementations by name, filled in by :mod:`ownership.ops` when the package is imported."""


def op(name: str) -> Callable[..., Tensor]:
    """The op registered as ``name`` (a ``KeyError`` before :mod:`ownership.ops` is imported)."""
    return OPS[name]


def op_many(name: str) -> Callable[..., tuple[Tensor, ...]]:
    """The op registered as ``name`` that returns several tensors (``unbind``, ``split``...)."""
    return OPS[name]
