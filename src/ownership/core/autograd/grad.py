"""What a backward reads of its arguments: the tensors and gradients given, a one-element
output's implicit seed, the roots' checks and the engine's flags; for ``Tensor.backward`` and
:mod:`ownership.autograd`'s functions alike."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership.core import layout
from ownership.core.storage import is_engine_tensor


def seed_ones(arr: Any) -> Any:
    """The implicit gradient of a one-element output ``arr``: torch's ``ones_like(output,
    memory_format=torch.preserve_format)``, its strides kept exactly."""
    if arr.ndim == 0:
        return np.array(1, arr.dtype)
    ones = layout.preserved(arr, [s // arr.itemsize for s in arr.strides], arr.dtype)
    ones[...] = 1
    return ones


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a tensor of the engine, as torch's argument of a backward reads one."""
    return is_engine_tensor(x) and hasattr(x, "requires_grad")


def tensors_given(x: Any) -> list[Any]:
    """torch's reading of ``outputs``/``inputs``: one tensor, or any sequence (``tuple(x)``)."""
    return [x] if is_tensor(x) else list(tuple(x))  # tuple(None): Python's own TypeError


def gradients_given(given: Any, n: int) -> list[Any]:
    """torch's reading of ``gradient``/``grad_outputs``: a tensor, or a sequence whose first
    ``n`` entries (one per output) are tensors or None."""
    grads = tensors_given(given)
    for g in grads[:n]:
        if g is not None and not is_tensor(g):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    return grads


def make_seeds(outs: Sequence[Any], gos: Sequence[Any]) -> list[Any]:
    """torch's ``_make_grads``: each output's seed (``zip``'s pairs): ones for a scalar output
    given None, a given gradient's shape checked."""
    seeds = []
    for i, (o, g) in enumerate(zip(outs, gos, strict=False)):
        if g is None:
            if o.requires_grad and o._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = o._wrap(seed_ones(o._data), o.dtype)
        elif g._data.shape != o._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                f"has a shape of {o.shape}."
            )
        seeds.append(g)
    return seeds


def check_roots(outs: Sequence[Any], seeds: Sequence[Any]) -> None:
    """The engine's checks of the roots: one seed per output, each output with a history."""
    if len(seeds) != len(outs):
        raise RuntimeError(f"got {len(outs)} tensors and {len(seeds)} gradients")
    for i, o in enumerate(outs):
        if not o.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )


def engine_flag(value: Any) -> bool:
    """A flag of torch's engine call (``retain_graph``...), read as its binding reads an unsigned
    byte: anything with ``__index__`` from 0 to 255, else torch's TypeError or OverflowError."""
    if value is True or value is False:
        return value
    if not hasattr(type(value), "__index__"):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    n = operator.index(value)
    if n < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if n > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return bool(n)
