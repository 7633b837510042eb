"""The layout of an advanced index's result, as torch's ``index`` kernel lays it out.

torch's ``index`` (``AdvancedIndex`` then ``build_index_op``) runs a TensorIterator over the
indexed tensor restrided to the result's shape (stride 0 along the dims the indices make) and the
index tensors (broadcast together, reshaped with size-1 dims around them); the result is laid out
by that iterator's rule (:func:`~ownership.ops.iteration_order.elementwise_strides`). Indexed dims that are
not adjacent go to the front first (``transposeToFront``). So ``x[:, [1, 0]]`` of a row-major
``x`` is row-major (strides ``(2, 1)``, a ``view(-1)`` works), where numpy lays it out otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership.core import layout
from ownership.ops import view_shapes
from ownership.ops.index_keys import is_mask
from ownership.ops.iteration_order import elementwise_strides

Geometry = tuple[tuple[int, ...], tuple[int, ...]]


def index_strides(
    shape: Sequence[int], strides: Sequence[int], npkey: tuple[Any, ...]
) -> layout.Shape | None:
    """The element strides of ``x[npkey]`` for ``x`` of ``shape`` and ``strides``, None when
    row-major; ``npkey`` holds full slices, at most one Ellipsis and index arrays (int or bool),
    torch's ints, slices and Nones already applied as views."""
    if tuple(strides) == layout.contiguous_strides(shape) and all(
        not isinstance(k, np.ndarray) or k.dtype.kind == "b" or layout.row_major(k) for k in npkey
    ):
        # the common case: every operand's strides fall from the outer dims in, and a mask's
        # columns are 1-d, so the iterator keeps the dims in order (asked quickly: every x[idx]);
        # strictly row-major, a size-1 dim's stride included: the iterator orders dims by it
        return None
    per_dim = _indices_per_dim(len(shape), npkey)
    indexed = [d for d, idx in enumerate(per_dim) if idx is not None]
    if not indexed:
        return None
    if indexed != list(range(indexed[0], indexed[-1] + 1)):  # transposeToFront
        order = indexed + [d for d in range(len(shape)) if d not in indexed]
        shape, strides = [shape[d] for d in order], [strides[d] for d in order]
        per_dim = [per_dim[d] for d in order]
        indexed = list(range(len(indexed)))
    index_geometry: list[Geometry] = [g for g in per_dim if g is not None]
    common = layout.broadcast_shapes(*(g[0] for g in index_geometry))
    before, after = indexed[0], len(shape) - indexed[-1] - 1
    result = (*shape[:before], *common, *shape[indexed[-1] + 1 :])
    source = (*strides[:before], *(0 for _ in common), *strides[indexed[-1] + 1 :])
    operands: list[tuple[tuple[int, ...], tuple[int, ...]] | None] = [(result, source)]
    for own_shape, own_strides in index_geometry:
        expanded = view_shapes.expand_strides(own_shape, own_strides, common)
        around = (*(1 for _ in range(before)), *common, *(1 for _ in range(after)))
        reshaped = view_shapes.view_strides(common, expanded, around)
        operands.append((around, reshaped or layout.contiguous_strides(around)))
    return elementwise_strides(result, tuple(operands))


def _indices_per_dim(ndim: int, npkey: tuple[Any, ...]) -> list[Geometry | None]:
    """Each dim's index tensor as torch's ``expandTensors`` makes it (sizes, element strides),
    None for a dim taken whole: a bool mask of ``k`` dims is ``k`` columns of its ``nonzero()``
    (each of stride ``k``)."""
    out: list[Geometry | None] = []
    consumed = sum(k.ndim if is_mask(k) else 1 for k in npkey if k is not Ellipsis)
    for k in npkey:
        if k is Ellipsis:
            out.extend([None] * (ndim - consumed))
        elif isinstance(k, slice):
            out.append(None)
        elif is_mask(k):
            count = int(np.count_nonzero(k))
            out.extend([((count,), (k.ndim,))] * k.ndim)
        else:
            arr = np.asarray(k)
            item = arr.itemsize
            out.append((arr.shape, tuple(s // item for s in arr.strides)))
    out.extend([None] * (ndim - len(out)))
    return out
