"""View ops: new sizes/strides over the same storage, and their backward.

Each view shares storage and version counter with its input; ``_base`` is the root. The backward
of a view is the inverse reshaping of the gradient, written with tensor ops.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership.core import layout
from ownership.core.autograd.node import Edge, Grads, OpNode, Saved, gradient_edge
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.core.warn_once import outside_level, warn_once
from ownership.ops import view_shapes
from ownership.ops.argument_values import as_given
from ownership.ops.common import attach, needs_grad, run_op, shared_dtypes, touch_history
from ownership.ops.view_geometry import (
    Part,
    expand_geometry,
    op_geometry,
    permute_geometry,
    select_geometry,
    slice_geometry,
    squeeze_geometry,
    t_geometry,
    transpose_geometry,
    unsqueeze_geometry,
    view_geometry,
)


def _edge(t: Tensor) -> Edge | None:
    """The edge a view of ``t`` records, None when it records none (see ``needs_grad``).

    Read first, as torch collects an op's input edges before computing: reading it refreshes a
    stale view's history (``touch_history``), so a rebase error comes before the op's own."""
    if needs_grad(t):
        return gradient_edge(t)
    touch_history(t)
    return None


def _make(
    t: Tensor,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    offset: int,
    name: str,
    backward: Any,
    ctx: dict[str, Any],
    edge: Edge | None,
    data: Any = None,
) -> Tensor:
    """The view of ``t`` with these sizes, strides and offset, recorded as ``name`` when ``edge``
    (from ``_edge``) is given (``data``: its numpy array when the caller has made it, see
    ``Tensor._view``)."""
    out = t._view(shape, strides, offset, data, edge is not None)
    if edge is not None:
        # the node ``run_op`` would make of ``(t,)``, with the edge already read
        attach(out, OpNode(name, (edge,), backward, ctx, 1, shared_dtypes((t.dtype,))))
    return out


def _bw_view(node: OpNode, s: Saved, g: Grads) -> Any:
    return (g[0].reshape(s["self_sym_sizes"]),)


def view(t: Tensor, *shape: Any, dtype: Any = None) -> Tensor:
    """``t.view(*shape)``: torch's stride rule, torch's error when impossible. ``t.view(dtype)``
    (the same bytes read as another dtype) is not in the engine's scope: refused."""
    if dtype is not None:
        raise RuntimeError("view(dtype) is not supported by ownership")
    edge = _edge(t)
    new, strides, reshaped, saved, _ = view_geometry(t, shape)
    if strides is None:
        raise RuntimeError(view_shapes.VIEW_ERROR)
    data = t._data.reshape(new) if reshaped else None
    return _make(t, new, strides, t._offset, "ViewBackward0", _bw_view, saved, edge, data)


def reshape(t: Tensor, *shape: Any) -> Tensor:
    """A view when possible, else a copy (``CloneBackward0`` then ``UnsafeViewBackward0``).

    The view of a contiguous tensor is ``ViewBackward0``; of a non-contiguous one that still
    allows a view, torch's ``_reshape_alias`` (``ReshapeAliasBackward0``).
    """
    edge = _edge(t)
    new, strides, reshaped, saved, contiguous = view_geometry(t, shape)
    if strides is not None:
        name = "ViewBackward0" if contiguous else "ReshapeAliasBackward0"
        data = t._data.reshape(new) if reshaped else None
        return _make(t, new, strides, t._offset, name, _bw_view, saved, edge, data)
    c = OPS["clone"](t)
    recorded = needs_grad(c)
    ctx = {"self_sym_sizes": tuple(t._data.shape)} if recorded else None
    args = (c, new)
    return run_op((c,), recorded, _unsafe_view, "UnsafeViewBackward0", _bw_view, ctx, args=args)


def _unsafe_view(c: Tensor, shape: tuple[int, ...]) -> Tensor:
    """The kernel of the view of :func:`reshape`'s copy ``c``: its array in ``shape``."""
    return Tensor._wrap(c._data.reshape(shape), c.dtype)


def flatten(t: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge a range of dimensions (returns ``t`` itself when nothing changes, like torch).

    torch's ``flatten`` checks its dims before the ``view`` it calls reads ``t``'s history; when
    it returns ``t`` itself it calls no op, and reads none."""
    nd = t._data.ndim
    if nd == 0:
        layout.wrap_dim(start_dim, nd), layout.wrap_dim(end_dim, nd)
        return reshape(t, 1)
    s = layout.wrap_dim(start_dim, nd)
    e = layout.wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return t
    touch_history(t)
    shape = t._data.shape
    new = (*shape[:s], int(np.prod(shape[s : e + 1])), *shape[e + 1 :])
    return reshape(t, new)


def _bw_t(node: OpNode, s: Saved, g: Grads) -> Any:
    return (g[0].t(),)


def transpose_2d(t: Tensor) -> Tensor:
    """Transpose of a tensor with at most 2 dims (``TBackward0``)."""
    edge = _edge(t)
    shape, st, ctx = op_geometry(t_geometry, t, ())
    arr = t._data
    # a tensor with elements: numpy's own transpose is this view (its strides are the tensor's)
    data = arr.T if arr.size else None
    return _make(t, shape, st, t._offset, "TBackward0", _bw_t, ctx, edge, data)


def _bw_permute(node: OpNode, s: Saved, g: Grads) -> Any:
    dims = s["dims"]
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[as_given(d) % len(dims)] = i
    return (g[0].permute(*inv),)


def permute(t: Tensor, *dims: Any) -> Tensor:
    """Reorder dimensions (``PermuteBackward0``)."""
    edge = _edge(t)
    flat = dims[0] if len(dims) == 1 and isinstance(dims[0], tuple) else dims
    shape, st, ctx, dims = op_geometry(permute_geometry, t, flat)
    arr = t._data
    # a tensor with elements: numpy's own permutation is this view (as in ``transpose_2d``)
    data = arr.transpose(dims) if arr.size and arr.ndim else None
    return _make(t, shape, st, t._offset, "PermuteBackward0", _bw_permute, ctx, edge, data)


def big_t(t: Tensor) -> Tensor:
    """``t.T``: all dims reversed (``PermuteBackward0``; 1-D and 0-D return ``t``-like views)."""
    nd = t._data.ndim
    if nd != 2:
        warn_once(  # torch's TORCH_WARN_ONCE, at the user's line
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.",
            stacklevel=outside_level(),
        )
    return permute(t, *range(nd - 1, -1, -1))


def matrix_t(t: Tensor) -> Tensor:
    """``t.mT``: the last two dims swapped; torch refuses 1-D and warns (identity) on 0-D."""
    nd = t._data.ndim
    if nd == 1:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    if nd == 0:
        warn_once(  # torch's TORCH_WARN_ONCE, at the user's line
            "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
            stacklevel=outside_level(),
        )
        return t
    return transpose(t, -2, -1)


def _bw_transpose(node: OpNode, s: Saved, g: Grads) -> Any:
    return (g[0].transpose(as_given(s["dim0"]), as_given(s["dim1"])),)


def transpose(t: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims (``TransposeBackward0``)."""
    edge = _edge(t)
    shape, st, ctx, (a, b) = op_geometry(transpose_geometry, t, (dim0, dim1))
    arr = t._data
    # a tensor with elements: numpy's own swap is this view (as in ``transpose_2d``)
    data = arr.swapaxes(a, b) if arr.size and arr.ndim else None
    return _make(t, shape, st, t._offset, "TransposeBackward0", _bw_transpose, ctx, edge, data)


def _bw_expand(node: OpNode, s: Saved, g: Grads) -> Any:
    from ownership.ops.common import sum_to

    return (sum_to(g[0], s["self_sym_sizes"]),)


def expand(t: Tensor, *sizes: Any) -> Tensor:
    """Repeat size-1 dims with stride 0 (``ExpandBackward0``)."""
    edge = _edge(t)
    flat = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], tuple) else sizes
    shape, st, ctx = op_geometry(expand_geometry, t, flat)
    return _make(t, shape, st, t._offset, "ExpandBackward0", _bw_expand, ctx, edge)


def _bw_unsqueeze(node: OpNode, s: Saved, g: Grads) -> Any:
    return (g[0].squeeze(as_given(s["dim"])),)


def unsqueeze(t: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim (``UnsqueezeBackward0``)."""
    edge = _edge(t)
    shape, st, ctx, reshaped = op_geometry(unsqueeze_geometry, t, (dim,))
    data = t._data.reshape(shape) if reshaped else None  # (see ``view_geometry.by_reshape``)
    return _make(t, shape, st, t._offset, "UnsqueezeBackward0", _bw_unsqueeze, ctx, edge, data)


def unsqueeze_to(g: Tensor, sizes: tuple[int, ...], dims: Any = None) -> Tensor:
    """The gradient of a squeeze of a tensor of ``sizes`` (torch's ``unsqueeze_to``): ``g``
    unsqueezed at each dim of size 1 among ``dims`` (a saved dim or tuple of them; None: all),
    in order; ``g`` itself when none was (squeezing a dim of another size drops nothing)."""
    chosen: Sequence[int]
    if dims is None:
        chosen = range(len(sizes))
    else:
        given = dims if isinstance(dims, tuple) else (dims,)
        chosen = sorted({layout.wrap_dim(as_given(d), len(sizes)) for d in given}) if sizes else []
    out = g
    for d in chosen:
        if sizes[d] == 1:
            out = OPS["unsqueeze"](out, d)
    return out


def _bw_squeeze(node: OpNode, s: Saved, g: Grads) -> Any:
    return (unsqueeze_to(g[0], s["self_sym_sizes"]),)


def _bw_squeeze_dims(node: OpNode, s: Saved, g: Grads) -> Any:
    return (unsqueeze_to(g[0], s["self_sym_sizes"], s["dim"]),)


def squeeze(t: Tensor, dim: Any = None) -> Tensor:
    """Drop size-1 dims (all: ``SqueezeBackward0``; one: ``SqueezeBackward1``)."""
    edge = _edge(t)
    shape, st, ctx, name, dropped = op_geometry(squeeze_geometry, t, () if dim is None else (dim,))
    arr = t._data
    # a tensor with elements: numpy's own squeeze of those size-1 dims is this view (with no
    # dim to drop, numpy returns the array itself: a new view of it is made instead)
    data = (arr.squeeze(dropped) if dropped else arr.view()) if arr.size else None
    backward = _bw_squeeze if dim is None else _bw_squeeze_dims
    return _make(t, shape, st, t._offset, name, backward, ctx, edge, data)


def _bw_slice(node: OpNode, s: Saved, g: Grads) -> Any:
    key = [slice(None)] * len(s["self_sym_sizes"])
    key[as_given(s["dim"])] = slice(as_given(s["start"]), as_given(s["end"]), s["step"])
    return (OPS["embed"](g[0], s["self_sym_sizes"], tuple(key)),)


def _part(t: Tensor, part: Part, name: str, backward: Any, edge: Edge | None) -> Tensor:
    """The view of ``t`` with the geometry ``part`` (``_make``'s), made by numpy's basic
    indexing of ``t``'s array when ``t`` has elements (its strides are then its array's)."""
    shape, st, offset, ctx, key = part
    arr = t._data
    data = arr[key] if key is not None and arr.size else None
    return _make(t, shape, st, t._offset + offset, name, backward, ctx, edge, data)


_END = sys.maxsize


def slice_dim(t: Tensor, dim: int, start: int | None, end: int | None, step: int | None) -> Tensor:
    """Basic slicing of one dim (``SliceBackward0``)."""
    edge = _edge(t)
    # with a step > 0 (else the geometry raises), no start means 0 and no end the largest int
    # (``slice.indices``): one remembered geometry for both spellings
    args = (
        dim,
        0 if start is None else start,
        _END if end is None else end,
        1 if step is None else step,
    )
    return _part(t, op_geometry(slice_geometry, t, args), "SliceBackward0", _bw_slice, edge)


def narrow(t: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements of ``dim`` from ``start`` (``SliceBackward0``): its arguments checked
    before the ``slice`` it calls reads ``t``'s history, as torch's ``narrow``."""
    if t._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = layout.wrap_dim(dim, t._data.ndim)
    size = t._data.shape[d]
    if start < -size or start > size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_dim(t, dim, start, start + length, 1)


def _bw_select(node: OpNode, s: Saved, g: Grads) -> Any:
    key: list[Any] = [slice(None)] * len(s["self_sym_sizes"])
    key[as_given(s["dim"])] = as_given(s["index"])
    return (OPS["embed"](g[0], s["self_sym_sizes"], tuple(key)),)


def select(t: Tensor, dim: int, index: int, from_indexing: bool = False) -> Tensor:
    """One index of ``dim``, removing it (``SelectBackward0``)."""
    edge = _edge(t)
    args = (dim, index, 1) if from_indexing else (dim, index)  # (its error's wording)
    return _part(t, op_geometry(select_geometry, t, args), "SelectBackward0", _bw_select, edge)


def _bw_alias(node: OpNode, s: Saved, g: Grads) -> Any:
    return (g[0],)


def alias(t: Tensor) -> Tensor:
    """The same elements as a new view (``AliasBackward0``), what ``t[...]`` returns."""
    return _make(
        t,
        tuple(t._data.shape),
        t._stride(),
        t._offset,
        "AliasBackward0",
        _bw_alias,
        {},
        gradient_edge(t) if needs_grad(t) else None,
    )
