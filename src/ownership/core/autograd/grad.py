"""What a backward reads of its arguments: the tensors and gradients given, the implicit seed of
a one-element output and the checks of the roots (one rule, for ``Tensor.backward`` and
torch's functions alike), the engine's flags (``retain_graph``, ``create_graph``).

``Tensor.backward`` (:mod:`ownership.core.tensor_autograd`) reads them here; torch's functions
``autograd.backward`` and ``autograd.grad`` (gradients returned, not accumulated) are
parity's: :mod:`ownership.autograd`."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership.core import layout
from ownership.core.storage import is_engine_tensor


def seed_ones(arr: Any) -> Any:
    """The implicit gradient of an output ``arr`` of one element: torch's
    ``ones_like(output, memory_format=torch.preserve_format)``, which keeps its strides exactly
    (a size-1 dim's stride included: ``layout.preserved``)."""
    if arr.ndim == 0:
        return np.array(1, arr.dtype)
    ones = layout.preserved(arr, [s // arr.itemsize for s in arr.strides], arr.dtype)
    ones[...] = 1
    return ones


def _seq(x: Any) -> list[Any]:
    return list(x) if isinstance(x, list | tuple) else [x]


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
    """torch's ``_make_grads``: each output's seed, paired with the given gradients as ``zip``
    pairs them (the shorter decides): ones for an output that requires grad given None (a
    scalar one only), a given gradient's shape checked. :func:`check_roots` then checks them
    as the engine does."""
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
    """The engine's checks of the roots, after its arguments' (:func:`engine_flag`): one seed
    per output, then each output has a history (refused by position)."""
    if len(seeds) != len(outs):
        raise RuntimeError(f"got {len(outs)} tensors and {len(seeds)} gradients")
    for i, o in enumerate(outs):
        if not o.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )


def engine_flag(value: Any) -> bool:
    """A flag of torch's engine call (``retain_graph``, ``create_graph``, ``allow_unused``), read
    as its C++ binding reads an unsigned byte: anything with ``__index__`` (a bool, an int, an
    integer tensor) from 0 to 255, else torch's TypeError or OverflowError."""
    if value is True or value is False:  # (the common case, first)
        return value
    if not hasattr(type(value), "__index__"):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    n = operator.index(value)
    if n < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if n > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return bool(n)
