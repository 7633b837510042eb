"""The nodes of history rebasing: ``CopySlices`` on a base, ``AsStridedBackward0`` on its views.

Geometry is (shape, strides, offset) in elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership.core.autograd.node import Edge, Node
from ownership.core.autograd.saved import FREED_MESSAGE
from ownership.core.layout import INTERNAL_OVERLAP_MESSAGE, has_internal_overlap, strided

Geometry = tuple[tuple[int, ...], tuple[int, ...], int]


def storage_span(*geoms: Geometry) -> int:
    """The elements a gradient buffer needs to hold every one of ``geoms`` (torch's
    ``_min_storage_size``; an empty geometry needs its offset)."""
    span = 0
    for shape, strides, offset in geoms:
        if any(n == 0 for n in shape):
            span = max(span, offset)
        else:
            span = max(
                span, offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
            )
    return span


def maybe_overlapping(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's quick test ``_maybe_overlapping_memory`` (it may say yes for a geometry that does
    not overlap, and torch's slower path then shows, so the same test is asked here)."""
    reach = 0
    for size, stride in sorted(zip(shape, strides, strict=True), key=lambda d: d[1]):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def _strided_over(g: Any, buf: Any, shape: Sequence[int], strides: Sequence[int]) -> Any:
    """A new tensor over the flat array ``buf`` at offset 0 (torch's ``new_empty_strided``)."""
    t = g._wrap(buf)
    t._storage  # noqa: B018 - made now, over ``buf``, before ``_data`` is another window on it
    t._data = strided(buf, shape, strides, 0)
    return t


class AsStridedBackward0(Node):
    """Gradient of a view taken of a base: torch's ``as_strided_backward``, as it writes it.

    The gradient is scattered into a flat buffer of zeros (summed where the view may overlap),
    divided where the base may overlap, and returned as a view of it with the base's geometry
    (its ``_base`` at version 1, 2 after the division; no elements: contiguous zeros, version 1).
    """

    __slots__ = ("base_geom", "view_geom")

    def __init__(self, edge: Edge, base_geom: Geometry, view_geom: Geometry) -> None:
        super().__init__((edge,), 1)
        self.base_geom = base_geom
        self.view_geom = view_geom

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        g = grads[0]
        arr = g._data
        in_shape, in_strides, in_offset = self.base_geom
        shape, strides, offset = self.view_geom
        if 0 in shape or 0 in in_shape:
            zeros = g._wrap(np.zeros(in_shape, arr.dtype))
            zeros._version_counter.bump()
            return (zeros,)
        # the view's dims: size 1 dropped, stride 0 summed, from the last
        out_shape: list[int] = []
        out_strides: list[int] = []
        for d in range(len(shape) - 1, -1, -1):
            if shape[d] == 1:
                arr = arr.squeeze(d)
            elif strides[d] == 0:
                arr = np.add.reduce(arr, axis=d, dtype=arr.dtype)
            else:
                out_shape.insert(0, shape[d])
                out_strides.insert(0, strides[d])
        in_dims = [(n, s) for n, s in zip(in_shape, in_strides, strict=True) if n != 1]
        in_overlap = maybe_overlapping([n for n, _ in in_dims], [s for _, s in in_dims])
        out_overlap = maybe_overlapping(out_shape, out_strides)
        shared = min(in_offset, offset)
        in_geom = (tuple(in_shape), tuple(in_strides), in_offset - shared)
        out_geom = (tuple(out_shape), tuple(out_strides), offset - shared)
        buf = np.zeros(storage_span(in_geom, out_geom), g._data.dtype)
        storage = g._wrap(buf)
        if out_overlap:  # index_add_: summed in order, element by element
            index = strided(np.arange(buf.size), *out_geom).reshape(-1)
            np.add.at(buf, index, np.asarray(arr).reshape(-1))
        else:  # copy_
            strided(buf, *out_geom)[...] = arr
        storage._version_counter.bump()
        if in_overlap:  # each element divided by how often the base reads it (0/0: nan)
            count = np.zeros(buf.size, buf.dtype)
            np.add.at(count, strided(np.arange(buf.size), *in_geom).reshape(-1), 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                np.divide(buf, count, out=buf)
            storage._version_counter.bump()
        return (storage._view(*in_geom),)


class CopySlices(Node):
    """The base's new ``grad_fn`` after an in-place op on one of its views.

    Its gradient for the old base is the one given, the view's region replaced (copied over) by
    the op's gradient for the view's old values (none if the op gives none); version 2. A
    backward without ``retain_graph`` drops the op's node, as torch's ``release_variables``.
    """

    __slots__ = ("base_geom", "fn", "view_geom")

    def __init__(self, base_edge: Edge, fn: Node, base_geom: Geometry, view_geom: Geometry) -> None:
        super().__init__((base_edge, *fn._edges[1:]), 1)
        # the view's old history is reached through the base now: drop fn's edge to it
        fn._edges = ((None, 0), *fn._edges[1:])
        self.fn: Node | None = fn
        self.base_geom = base_geom
        self.view_geom = view_geom

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        g = grads[0]
        if self.fn is None:
            raise RuntimeError(FREED_MESSAGE)
        base_shape, base_strides, base_offset = self.base_geom
        shape, strides, offset = self.view_geom
        # the base's geometry at offset 0, the view's where it lies from the base's first element
        view_geom = (shape, strides, offset - base_offset)
        buf = np.empty(storage_span((base_shape, base_strides, 0), view_geom), g._data.dtype)
        result = _strided_over(g, buf, base_shape, base_strides)
        if has_internal_overlap(base_shape, base_strides):  # copy_ into it refuses
            raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
        result._data[...] = g._data
        result._version_counter.bump()
        region = strided(buf, *view_geom)
        res = self.fn.apply((g._wrap(region.copy()),))
        if res[0] is None:  # torch passes no gradient to the old base then (not zeros)
            return (None, *res[1:])
        if has_internal_overlap(shape, strides):  # torch's copy_ refuses it
            raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
        region[...] = res[0]._data
        result._version_counter.bump()
        return (result, *res[1:])

    def release(self) -> None:
        if self.fn is not None:
            self.fn.release()
        self.fn = None
