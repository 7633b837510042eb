"""The nodes of history rebasing: ``CopySlices`` on a base, ``AsStridedBackward0`` on its views.

After an in-place op on a view, the base's history is "the old base with this region replaced by
the op's result": :class:`CopySlices` routes the gradient of the region through the op's node and
the rest to the old base. Views of a base whose history changed get their ``grad_fn`` rebuilt as
:class:`AsStridedBackward0`, a window on the base's gradient.

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
    """The elements a gradient buffer needs to hold every one of ``geoms``: the largest of their
    minimal storage sizes (torch's ``_min_storage_size`` in ``as_strided_backward``; an empty
    geometry needs its offset). Read from the geometries, not from the view's storage, which a
    ``.data`` assignment may have replaced since."""
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
    """Whether two elements of a geometry may share memory, by torch's quick test in
    ``as_strided_backward`` (``_maybe_overlapping_memory``): the dims sorted by stride, some
    stride no larger than the span of the dims before it. It may say yes for a geometry that
    does not overlap (sizes (3, 2), strides (2, 3)); torch then takes its slower path, whose
    version bumps and values outside the geometry show, so the same test is asked here."""
    reach = 0
    for size, stride in sorted(zip(shape, strides, strict=True), key=lambda d: d[1]):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def _strided_over(g: Any, buf: Any, shape: Sequence[int], strides: Sequence[int]) -> Any:
    """A new tensor (not a view, version 0) over the flat array ``buf``, with these sizes and
    strides at offset 0 (torch's ``new_empty_strided``, whatever the strides)."""
    t = g._wrap(buf)
    t._storage  # noqa: B018 - made now, over ``buf``, before ``_data`` is another window on it
    t._data = strided(buf, shape, strides, 0)
    return t


class AsStridedBackward0(Node):
    """Gradient of a view taken of a base: torch's ``as_strided_backward``, as it writes it.

    The gradient is scattered into a flat buffer of zeros (copied in, or summed where the view's
    elements may share memory), divided by how often each element appears where the base's may,
    and returned as a view of that buffer with the base's sizes and strides: the gradient's
    ``_base`` is a tensor no program holds, at version 1 (2 after the division). A view or base
    with no elements gets a new tensor of zeros, contiguous, at version 1 (``at::zeros`` called
    where its fill is counted). What it shows as torch's saved values (``_saved_size``...) is
    parity's (``ownership.ops.named_nodes.AsStridedSaved``, set on the class by
    ``ownership.installation.install()``)."""

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
        # the view's dims: size 1 dropped, stride 0 summed (an expanded view), from the last
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

    Its gradient for the old base is the gradient it was given, with the view's region replaced
    (copied over, not summed) by the op's gradient for the view's old values; where the op gives
    none (a custom Function's ``None``), torch passes no gradient to the old base at all. As
    torch writes it: a new tensor with the base's sizes and strides, the gradient copied in, the
    op given a contiguous copy of the view's region and its result copied over that region (so
    the gradient is at version 2).

    A backward without ``retain_graph`` drops the op's node (torch's ``release_variables``:
    ``fn = nullptr``), whether or not it saved anything: a second backward through it raises
    torch's "backward through the graph a second time".
    """

    __slots__ = ("base_geom", "fn", "view_geom")

    def __init__(self, base_edge: Edge, fn: Node, base_geom: Geometry, view_geom: Geometry) -> None:
        super().__init__((base_edge, *fn._edges[1:]), 1)
        # the view's old history is reached through the base now: like torch, drop fn's edge to it
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
        if has_internal_overlap(shape, strides):
            # torch copies the op's gradient into the view's part of the base's gradient with
            # copy_, which refuses a view written twice (an expanded one)
            raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
        region[...] = res[0]._data
        result._version_counter.bump()
        return (result, *res[1:])

    def release(self) -> None:
        if self.fn is not None:
            self.fn.release()
        self.fn = None
