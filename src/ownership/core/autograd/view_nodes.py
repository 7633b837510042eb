"""The nodes of history rebasing: ``CopySlices`` on a base, ``AsStridedBackward0`` on its views.

After an in-place op on a view, the base's history is "the old base with this region replaced by
the op's result": :class:`CopySlices` routes the gradient of the region through the op's node and
the rest to the old base. Views of a base whose history changed get their ``grad_fn`` rebuilt as
:class:`AsStridedBackward0`, a window on the base's gradient.

Geometry is (shape, strides, offset) in elements over a storage of ``storage_size`` elements.
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


def _scatter_add(size: int, geom: Geometry, grad: Any, dtype: Any) -> Any:
    """A flat buffer of ``size`` zeros with ``grad`` summed into the elements ``geom`` covers."""
    shape, strides, offset = geom
    idx = np.full((1,) * len(shape), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides, strict=True)):
        ax = [1] * len(shape)
        ax[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(ax)
    idx = np.broadcast_to(idx, shape).reshape(-1)
    g = np.broadcast_to(np.asarray(grad, dtype=np.float64), shape).reshape(-1)
    return np.bincount(idx, weights=g, minlength=size).astype(dtype)


class AsStridedBackward0(Node):
    """Gradient of a view taken of a base: scatter into a zero base."""

    __slots__ = ("base_geom", "storage_size", "view_geom")

    def __init__(
        self, edge: Edge, base_geom: Geometry, view_geom: Geometry, storage_size: int
    ) -> None:
        super().__init__((edge,), 1)
        self.base_geom = base_geom
        self.view_geom = view_geom
        self.storage_size = storage_size

    @property
    def _saved_size(self) -> tuple[int, ...]:
        """torch's saved ``size`` of the ``as_strided`` call: the view's shape."""
        return tuple(self.view_geom[0])

    @property
    def _saved_stride(self) -> tuple[int, ...]:
        """torch's saved ``stride``: the view's strides, in elements."""
        return tuple(self.view_geom[1])

    @property
    def _saved_storage_offset(self) -> int:
        """torch's saved ``storage_offset``: the view's offset into the storage, in elements."""
        return int(self.view_geom[2])

    def __dir__(self) -> list[str]:
        """The node's public names and the ``_saved_<name>`` torch shows for it."""
        return sorted({*super().__dir__(), "_saved_size", "_saved_storage_offset", "_saved_stride"})

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        g = grads[0]
        buf = _scatter_add(self.storage_size, self.view_geom, g._data, g._data.dtype)
        out = strided(buf, *self.base_geom).copy()
        return (g._wrap(out),)


class CopySlices(Node):
    """The base's new ``grad_fn`` after an in-place op on one of its views.

    Its gradient for the old base is the gradient it was given, with the view's region replaced
    (copied over, not summed) by the op's gradient for the view's old values; where the op gives
    none (a custom Function's ``None``), torch passes no gradient to the old base at all.

    A backward without ``retain_graph`` drops the op's node (torch's ``release_variables``:
    ``fn = nullptr``), whether or not it saved anything: a second backward through it raises
    torch's "backward through the graph a second time".
    """

    __slots__ = ("base_geom", "fn", "storage_size", "view_geom")

    def __init__(
        self, base_edge: Edge, fn: Node, base_geom: Geometry, view_geom: Geometry, storage_size: int
    ) -> None:
        super().__init__((base_edge, *fn._edges[1:]), 1)
        # the view's old history is reached through the base now: like torch, drop fn's edge to it
        fn._edges = ((None, 0), *fn._edges[1:])
        self.fn: Node | None = fn
        self.base_geom = base_geom
        self.view_geom = view_geom
        self.storage_size = storage_size

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        g = grads[0]
        if self.fn is None:
            raise RuntimeError(FREED_MESSAGE)
        buf = np.zeros(self.storage_size, dtype=g._data.dtype)
        base = strided(buf, *self.base_geom)
        base[...] = g._data
        region = strided(buf, *self.view_geom)
        res = self.fn.apply((g._wrap(region.copy()),))
        if res[0] is None:  # torch passes no gradient to the old base then (not zeros)
            return (None, *res[1:])
        if has_internal_overlap(self.view_geom[0], self.view_geom[1]):
            # torch copies the op's gradient into the view's part of the base's gradient with
            # copy_, which refuses a view written twice (an expanded one)
            raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
        region[...] = res[0]._data
        return (g._wrap(base.copy()), *res[1:])

    def release(self) -> None:
        if self.fn is not None:
            self.fn.release()
        self.fn = None
