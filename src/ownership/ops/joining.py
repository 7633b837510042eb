"""Joining tensors: ``stack`` along a new dimension and ``cat`` along an existing one, each a
new tensor whose dtype promotes every input's, with a backward that splits the gradient back.
``cat``'s result is row-major unless every input suggests one channels-last format
(:func:`cat_format`); ``stack`` is torch's ``cat`` then ``view``, laid out as that view.

>>> import ownership
>>> a, b = ownership.ones(2), ownership.zeros(2, dtype=ownership.int64)
>>> ownership.stack([a, b]).shape, ownership.cat([a, b]).dtype
(torch.Size([2, 2]), torch.float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.binder import Signatures
from ownership.core.dtypes import dtype as DType
from ownership.core.tensor import Tensor
from ownership.ops import checks, view_shapes
from ownership.ops import signatures as sig
from ownership.ops.argument_values import as_saved
from ownership.ops.common import inference_kernel, needs_grad, run_op, touch_history, wrap
from ownership.ops.memory_formats import (
    contiguous_format,
    format_strides,
    memory_format,
    suggested,
)
from ownership.ops.op_table import ops


def _join_arguments(
    spec: Signatures, args: tuple[Any, ...], kwargs: dict[str, Any], stacking: bool
) -> tuple[list[Tensor], int, DType, dict[str, Any]]:
    """The tensors, the checked dim and the result's dtype of a join (every input's dtype promoted
    together: torch's rule), and the node's saved values (``dim`` as given)."""
    a = spec.parse(args, kwargs)[1]
    ts = list(a["tensors"])
    for t in ts:  # the node's edges are collected before the kernel's checks (fuzz 316588)
        touch_history(t)
    d = checks.join(ts, a["dim"], stacking=stacking)
    dt = ts[0].dtype
    for x in ts[1:]:
        dt = dtypes.promote_types(dt, x.dtype)
    return ts, d, dt, {"dim": as_saved(a["dim"])}


def cat_format(shapes_strides: Sequence[tuple[Sequence[int], Sequence[int]]]) -> memory_format:
    """The memory format of ``cat``'s fresh result (torch's ``cat_compute_output_memory_format``):
    the one every input's (sizes, strides) suggest, else ``contiguous_format`` (as soon as one
    input suggests it, or two differ)."""
    found: memory_format | None = None
    for shape, strides in shapes_strides:
        fmt = suggested(shape, strides)
        if fmt is contiguous_format or (found is not None and fmt is not found):
            return contiguous_format
        found = fmt
    assert found is not None
    return found


def _joined(arrays: list[NDArray[Any]], strides: list[Sequence[int]], d: int, dt: DType) -> Any:
    """``cat``'s values: ``arrays`` (1-D empty ones skipped: torch's legacy rule) joined along
    ``d`` into fresh memory of dtype ``dt``, laid out in the memory format of
    :func:`cat_format` (``strides``: each array's element strides)."""
    kept = [a for a in arrays if a.shape != (0,)] or [arrays[0]]
    values = np.concatenate(kept, axis=d)
    fmt = cat_format([(a.shape, st) for a, st in zip(arrays, strides, strict=True)])
    out = layout.dense_with_strides(values.shape, format_strides(fmt, values.shape), dt.np)
    if values.size:
        np.copyto(out, values, casting="unsafe")
    return out


def stack(*args: Any, **kwargs: Any) -> Tensor:
    """Join along a new dim (``StackBackward0``): ``stack(tensors, dim=0)``, computed as torch's
    kernel computes it. Along an existing dim it is ``cat(tensors, dim)`` viewed with the new dim
    split off (a view autograd sees only when every input is an inference tensor, out of
    inference mode: ``ownership.ops.common.inference_kernel``; otherwise the kernel runs
    below autograd and the result is no view); after the last dim it is ``cat`` of the inputs
    unsqueezed there."""
    ts, d, dt, saved = _join_arguments(sig.FN_STACK, args, kwargs, stacking=True)
    shape = list(ts[0]._data.shape)
    if d < len(shape) and inference_kernel(*ts):
        flat = _joined([x._data for x in ts], [x._stride() for x in ts], d, dt)
        view_of_cat: Tensor = ops.view(wrap(flat, dt), [*shape[:d], len(ts), *shape[d:]])
        return view_of_cat

    def kernel() -> Tensor:
        if d < len(shape):
            flat = _joined([x._data for x in ts], [x._stride() for x in ts], d, dt)
            sizes = [*shape[:d], len(ts), *shape[d:]]
            item = flat.itemsize
            view = view_shapes.view_strides(flat.shape, [st // item for st in flat.strides], sizes)
            assert view is not None  # one can always split a dimension with view
            if flat.size:  # the same memory, from its first element: ``flat``'s offset is 0
                arr = np.lib.stride_tricks.as_strided(flat, sizes, [st * item for st in view])
            else:
                arr = layout.empty_strided(sizes, view, dt.np)
            return wrap(arr, dt)
        arrays = [x._data[..., None] for x in ts]
        return wrap(_joined(arrays, [(*x._stride(), 1) for x in ts], d, dt), dt)

    return run_op(
        ts, needs_grad(*ts), kernel, "StackBackward0", lambda node, s, g: g[0].unbind(d), saved
    )


def cat(*args: Any, **kwargs: Any) -> Tensor:
    """Join along an existing dim (``CatBackward0``): ``cat(tensors, dim=0)``."""
    ts, d, dt, saved = _join_arguments(sig.FN_CAT, args, kwargs, stacking=False)
    recorded = needs_grad(*ts)
    # each input's size along ``d`` (None: a 1-D empty input, which the kernel skips)
    sizes = [None if x._data.shape == (0,) else x._data.shape[d] for x in ts] if recorded else []

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        out_g, start = [], 0
        for n in sizes:
            if n is None:  # a skipped 1-D empty input (torch's legacy rule)
                out_g.append(g[0].new_zeros(0))
                continue
            out_g.append(g[0].narrow(d, start, n))
            start += n
        return tuple(out_g)

    return run_op(
        ts,
        recorded,
        lambda: wrap(_joined([x._data for x in ts], [x._stride() for x in ts], d, dt), dt),
        "CatBackward0",
        bw,
        saved,
    )
