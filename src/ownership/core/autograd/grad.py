"""``autograd.grad``: gradients of outputs with respect to given inputs, returned (not accumulated)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership.core import layout, op_registry
from ownership.core.autograd import grad_dtype
from ownership.core.autograd.engine import run_backward
from ownership.core.op_table import CoreOps
from ownership.core.storage import is_engine_tensor

ops: CoreOps[Any] = op_registry.ops


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


def _is_tensor(x: Any) -> bool:
    return is_engine_tensor(x) and hasattr(x, "requires_grad")


def tensors_given(x: Any) -> list[Any]:
    """torch's reading of ``outputs``/``inputs``: one tensor, or any sequence (``tuple(x)``)."""
    return [x] if _is_tensor(x) else list(tuple(x))  # tuple(None): Python's own TypeError


def gradients_given(given: Any, n: int) -> list[Any]:
    """torch's reading of ``gradient``/``grad_outputs``: a tensor, or a sequence whose first
    ``n`` entries (one per output) are tensors or None."""
    grads = tensors_given(given)
    for g in grads[:n]:
        if g is not None and not _is_tensor(g):
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


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Any, ...]:
    """Gradients of ``outputs`` w.r.t. ``inputs`` (a tuple, one entry per input).

    ``create_graph=True`` records the backward itself so the result can be differentiated again.
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = tensors_given(outputs)
    ins = tensors_given(inputs)
    for o in outs:
        if not _is_tensor(o):
            raise AssertionError("Expected output to be a torch.Tensor")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    gos: Sequence[Any] = (
        gradients_given(grad_outputs, len(outs)) if grad_outputs is not None else [None] * len(outs)
    )
    seeds = make_seeds(outs, gos)
    keep = engine_flag(create_graph if retain_graph is None else retain_graph)
    create_graph = engine_flag(create_graph)
    allow_unused = engine_flag(allow_unused)
    check_roots(outs, seeds)
    res = run_backward(outs, seeds, keep, create_graph, ins, accumulate=False)
    out = []
    for i, (t, r) in enumerate(zip(ins, res, strict=True)):
        if r is None:
            if materialize_grads:  # torch's zeros_like, a leaf that requires grad to go on
                r = ops.zeros_like(t, requires_grad=create_graph)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
        elif t.is_leaf:  # as it reached the leaf's AccumulateGrad
            r = grad_dtype.cast(t, r)
        elif r.dtype is not t.dtype:
            r = r.to(t.dtype)
        out.append(r)  # as the engine left it (torch detaches nothing: a view stays a view)
    return tuple(out)
