"""``gather``, ``index_select`` and ``flip``: new tensors of elements picked from ``self``.

``gather(dim, index)`` reads ``self`` at ``index`` along ``dim`` (and at its own position along
the other dims); ``index_select(dim, index)`` takes whole slices along ``dim`` at a vector of
indices; ``flip(dims)`` reverses the order along each of ``dims``. Each result is a new tensor
(never a view) of ``self``'s dtype, contiguous (a flip is laid out as ``self``). Their nodes save what torch's show: ``GatherBackward0``
the ``dim``, ``index``, ``self`` and ``sparse_grad``; ``IndexSelectBackward0`` the ``dim``,
``index`` and ``self``'s sizes; ``FlipBackward0`` the ``dims``. A gradient goes back to where its
element came from, summed where an index repeats: torch's ``scatter_add`` into zeros
(``ScatterAddBackward0`` when the gradient has a history) and ``index_add_`` into zeros
(``IndexAddBackward0``), both differentiable; a flip's gradient is flipped back.

>>> import ownership
>>> x = ownership.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
>>> x.gather(1, ownership.tensor([[2, 0], [1, 1]]))
tensor([[3., 1.],
        [5., 5.]])
>>> x.flip(0)
tensor([[4., 5., 6.],
        [1., 2., 3.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.common import (
    as_tensor_arg,
    needs_grad,
    run_op,
    wrap,
    written_fresh,
)
from ownership.ops.reduction import saved_dims

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _along(index: NDArray[Any], axis: int) -> tuple[NDArray[Any], ...]:
    """The advanced-indexing key that reads an ``index``-shaped array at ``index`` along
    ``axis`` and at each element's own position along the other dims."""
    grids = np.ogrid[tuple(slice(n) for n in index.shape)]
    return tuple(index if d == axis else grid for d, grid in enumerate(grids))


def _check_gather(t: Tensor, axis: int, index: Tensor) -> None:
    """torch's refusals of ``gather``, in its order: the index dtype, its number of dims, its
    sizes beside ``dim`` (an empty index is not checked further), its values."""
    if index.dtype not in _INDEX_DTYPES:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    arr, idx = t._data, index._data
    if max(idx.ndim, 1) != max(arr.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if idx.size == 0:
        return
    self_shape, index_shape = arr.shape or (1,), idx.shape or (1,)
    for d, (n, m) in enumerate(zip(index_shape, self_shape, strict=True)):
        if d != axis and n > m:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(idx.shape)} to be "
                f"no larger than self {list(arr.shape)} apart from dimension {axis}"
            )
    size = self_shape[axis]
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise RuntimeError(
            f"index {int(idx[bad].flat[0])} is out of bounds for dimension {axis} with size {size}"
        )


def _bw_gather(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``gather_backward``: zeros of ``self``'s shape, the gradient summed in at
    ``index`` (``scatter_add``). torch's ``sparse_grad=True`` gives a sparse gradient, a layout
    the engine does not have: refused rather than given dense."""
    if s["sparse_grad"]:
        raise NotImplementedError("gather(sparse_grad=True) is not supported by ownership")
    self = s["self"]
    return (scatter_add_into_zeros(g[0], tuple(self._data.shape), s["dim"], s["index"]),)


def gather(t: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = self[index[i][j]][j]`` for ``dim`` 0 (and so on): a new tensor of
    ``index``'s shape (``GatherBackward0``, saves ``index`` and ``self`` before the kernel's
    checks of ``dim`` and ``index``)."""
    index = as_tensor_arg(index)

    def save(node: OpNode) -> None:
        node.save("index", index)
        node.save("self", t)

    def kernel() -> Tensor:
        arr, idx = t._data, index._data
        axis = layout.wrap_dim(dim, arr.ndim)
        _check_gather(t, axis, index)
        if idx.size == 0:
            vals: NDArray[Any] = np.empty(idx.shape, arr.dtype)
        else:
            flat_idx = np.atleast_1d(idx).astype(np.int64, copy=False)
            vals = np.atleast_1d(arr)[_along(flat_idx, axis)].reshape(idx.shape)
        return wrap(np.array(vals, order="C"), t.dtype)

    ctx = {"dim": as_saved(dim), "sparse_grad": sparse_grad}
    # a normal index runs autograd for an inference ``t`` too
    return run_op((t,), needs_grad(t, index), kernel, "GatherBackward0", _bw_gather, ctx, save)


def _bw_scatter_add(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d scatter_add(zeros, dim, index, src) / d src: the gradient read back at ``index``."""
    return (None, gather(g[0], as_given(s["dim"]), s["index"]))


def scatter_add_into_zeros(g: Tensor, shape: tuple[int, ...], dim: int, index: Tensor) -> Tensor:
    """``zeros(shape).scatter_add(dim, index, g)``: ``g`` summed in at ``index`` along ``dim``
    (a written result, version 1, as torch's); ``ScatterAddBackward0`` when ``g`` has a
    history. ``dim`` is as a node saved it."""

    def kernel() -> Tensor:
        buf: NDArray[Any] = np.zeros(shape or (1,), dtype=g._data.dtype)
        idx = index._data
        if idx.size:
            axis = layout.wrap_dim(as_given(dim), len(shape))
            np.add.at(buf, _along(np.atleast_1d(idx).astype(np.int64, copy=False), axis), g._data)
        return written_fresh(wrap(buf.reshape(shape), g.dtype))

    return run_op(
        (None, g),
        needs_grad(g),
        kernel,
        "ScatterAddBackward0",
        _bw_scatter_add,
        {"dim": dim},
        lambda node: node.save("index", index),
    )


def _check_index_select(t: Tensor, axis: int, index: Tensor) -> NDArray[np.int64]:
    """torch's refusals of ``index_select``, in its order (a vector, one index for a 0-d ``t``,
    an integer dtype, each index in range, worded as the kernel that would run words it); the
    indices, 1-d."""
    idx = index._data
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not t._data.ndim and idx.size != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
        )
    if index.dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    flat = np.atleast_1d(idx).astype(np.int64)
    arr = t._data
    size = arr.shape[axis] if arr.ndim else 1
    # torch's kernel for an empty self of two dims or more: only an empty axis is refused
    empty = arr.ndim > 1 and flat.size > 0 and arr.size == 0
    if empty and size == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = (flat < 0) | (flat >= size)
    if bad.any():
        if arr.ndim > 1 and (axis == 1 or empty):  # torch's contiguous kernel along dim 1
            raise RuntimeError(
                f"INDICES element is out of DATA bounds, id={int(flat[bad][0])} axis_dim={size}"
            )
        raise IndexError("index out of range in self")
    return flat


def _bw_index_select(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``index_select_backward``: zeros of ``self``'s sizes, the gradient added in at
    ``index`` along ``dim`` (``index_add_``)."""
    return (index_add_into_zeros(g[0], s["self_sym_sizes"], s["dim"], s["index"]),)


def index_select(t: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``t`` along ``dim`` at the indices of the vector ``index``, in its order
    (``IndexSelectBackward0``, saves ``index`` before the kernel's checks of ``dim`` and
    ``index``)."""
    index = as_tensor_arg(index)
    arr = t._data

    def kernel() -> Tensor:
        axis = layout.wrap_dim(dim, arr.ndim)
        flat = _check_index_select(t, axis, index)
        vals = np.take(arr, flat, axis=axis) if arr.ndim else arr.copy()
        return wrap(np.array(vals, order="C"), t.dtype)

    ctx = {"dim": as_saved(dim), "self_sym_sizes": tuple(arr.shape)}
    return run_op(
        (t,),
        needs_grad(t, index),  # a normal index runs autograd for an inference ``t`` too
        kernel,
        "IndexSelectBackward0",
        _bw_index_select,
        ctx,
        lambda node: node.save("index", index),
    )


def _bw_index_add(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d index_add_(zeros, dim, index, source) / d source: the gradient's slices at ``index``."""
    return (None, index_select(g[0], as_given(s["dim"]), s["index"]))


def index_add_into_zeros(g: Tensor, shape: tuple[int, ...], dim: int, index: Tensor) -> Tensor:
    """``zeros(shape).index_add_(dim, index, g)``: the slices of ``g`` summed in at ``index``
    along ``dim`` (written in place, version 1, as torch's); ``IndexAddBackward0`` when ``g``
    has a history. ``dim`` is as a node saved it."""

    def kernel() -> Tensor:
        buf: NDArray[Any] = np.zeros(shape, dtype=g._data.dtype)
        flat = np.atleast_1d(index._data).astype(np.int64)
        if not shape:
            buf = buf + g._data.sum()
        elif flat.size:
            axis = layout.wrap_dim(as_given(dim), len(shape))
            key: Any = tuple(flat if d == axis else slice(None) for d in range(len(shape)))
            np.add.at(buf, key, np.reshape(g._data, tuple(buf[key].shape)))
        return written_fresh(wrap(buf, g.dtype))

    return run_op(
        (None, g),
        needs_grad(g),
        kernel,
        "IndexAddBackward0",
        _bw_index_add,
        {"dim": dim},
        lambda node: node.save("index", index),
    )


def _flip_axes(t: Tensor, dims: Any) -> tuple[int, ...]:
    """The dims of a flip, wrapped; torch's error for a dim given twice."""
    nd = t._data.ndim
    axes = [layout.wrap_dim(int(d), nd) for d in dims]
    for d in axes:
        if axes.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(axes)


def _bw_flip(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d flip(self, dims) = flip(d, dims)."""
    return (flip(g[0], [as_given(d) for d in s["dims"]]),)


def flip(t: Tensor, dims: Any) -> Tensor:
    """``t`` with the order of its elements reversed along each of ``dims``: a new tensor laid
    out as ``t`` is, as ``clone`` keeps it (``FlipBackward0``)."""

    def kernel() -> Tensor:
        axes = _flip_axes(t, dims)
        arr = t._data
        vals: NDArray[Any] = np.empty_like(arr)  # torch's ``empty_like``: ``t``'s memory format
        np.copyto(vals, np.flip(arr, axes) if arr.ndim and axes else arr)
        return wrap(vals, t.dtype)

    recorded = needs_grad(t)
    ctx = {"dims": saved_dims(tuple(dims))} if recorded else None
    return run_op((t,), recorded, kernel, "FlipBackward0", _bw_flip, ctx)
