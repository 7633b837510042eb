"""How a view's history follows its base (torch's ``variable.cpp``): :class:`CreationMeta`, how
a view was made; :func:`rebase_history` after a recorded in-place op (a view's base gets
:class:`CopySlices`); :func:`refresh_view_grad_fn`, a view's ``grad_fn`` rebuilt when next read
(:class:`AsStridedBackward0`). The checks before a rebase: :mod:`ownership.core.inplace_rules`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ownership.core.autograd.node import Edge, Node, gradient_edge
from ownership.core.autograd.saved import FREED_MESSAGE, forward_op_name
from ownership.core.layout import INTERNAL_OVERLAP_MESSAGE, has_internal_overlap, strided

if TYPE_CHECKING:
    from ownership.core.tensor import Tensor


Geometry = tuple[tuple[int, ...], tuple[int, ...], int]
"""A view's or base's (shape, strides, offset), in elements."""


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
    (its ``_base`` at version 1, 2 after the division; no elements: contiguous zeros, version 1)."""

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
    backward without ``retain_graph`` drops the op's node, as torch's ``release_variables``."""

    __slots__ = ("base_geom", "fn", "view_geom")

    def __init__(self, base_edge: Edge, fn: Node, base_geom: Geometry, view_geom: Geometry) -> None:
        super().__init__((base_edge, *fn._edges[1:]), 1, fn.input_dtypes)
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


class CreationMeta(enum.Enum):
    """How a view was made (torch's ``CreationMeta``): only a DEFAULT view may be rebased."""

    DEFAULT = enum.auto()
    IN_CUSTOM_FUNCTION = enum.auto()
    MULTI_OUTPUT_NODE = enum.auto()
    NO_GRAD_MODE = enum.auto()
    INFERENCE_MODE = enum.auto()


PLAIN = CreationMeta.DEFAULT
"""``CreationMeta.DEFAULT``."""


def propagate_creation_meta(inherited: CreationMeta, new: CreationMeta) -> CreationMeta:
    """torch's ``propagate_creation_meta``: the meta of a view of a view (``DEFAULT`` keeps the
    inherited one; ``INFERENCE_MODE`` is kept)."""
    if new is PLAIN or inherited is CreationMeta.INFERENCE_MODE:
        return inherited
    return new


def handle_view_on_rebase(t: Tensor, indirect: bool) -> None:
    """Raise torch's error for rebasing a view whose :class:`CreationMeta` forbids it
    (``indirect``: the write went through the base or another view)."""
    fn = t._grad_fn
    meta = t._creation_meta
    modified = "its base or another view of its base has been" if indirect else "is being"
    block = "inference_mode" if meta is CreationMeta.INFERENCE_MODE else "no_grad"
    output = f"Output {t._output_nr} of {forward_op_name(fn.name())}" if fn is not None else ""
    if fn is not None and meta not in (CreationMeta.INFERENCE_MODE, CreationMeta.NO_GRAD_MODE):
        msg = f"{output} is a view and {modified} modified inplace."
    else:
        prefix = f"{output} is a view of a view which was created in" if output else ""
        prefix = prefix or "A view was created in"
        if meta is CreationMeta.INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    if meta is CreationMeta.IN_CUSTOM_FUNCTION:
        msg += (
            " This view was created inside a custom Function (or because an input was returned "
            "as-is) and the autograd logic to handle view+inplace would override the custom "
            "backward associated with the custom Function, leading to incorrect gradients. This "
            "behavior is forbidden. You can fix this by cloning the output of the custom Function."
        )
    elif meta is CreationMeta.MULTI_OUTPUT_NODE:
        msg += (
            " This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the inplace "
            "operation by an out-of-place one."
        )
    else:
        msg += (
            " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the "
            f"{block} block (if you don't want the inplace to be tracked) or both outside (if you "
            "want the inplace to be tracked)."
        )
    raise RuntimeError(msg)


def rebase_history(t: Tensor, node: Node) -> None:
    """After a recorded in-place op, ``t``'s history becomes output 0 of ``node`` (a view's:
    its base's ``grad_fn`` becomes ``CopySlices`` around ``node``, the view's rebuilt at once)."""
    base = t._base
    if base is None:
        t._set_grad_fn(node)
        return
    base._set_grad_fn(CopySlices(gradient_edge(base), node, base._geometry(), t._geometry()))
    t._requires_grad = True
    t._view_version = -1
    refresh_view_grad_fn(t)


def refresh_view_grad_fn(t: Tensor) -> None:
    """After the counter moved, a differentiable view's ``grad_fn`` becomes a window on its base
    (views that may not be rebased refuse here, with torch's "its base or another view" errors)."""
    base = t._base
    assert base is not None
    if t._grad_fn is None and not base._requires_grad:
        # nothing to refresh yet: a base that later requires grad gives it its window then
        return
    if t._creation_meta is not PLAIN:
        handle_view_on_rebase(t, indirect=True)
    t._view_version = t._version_counter.value
    t._set_grad_fn(AsStridedBackward0(gradient_edge(base), base._geometry(), t._geometry()))
