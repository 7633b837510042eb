"""``sort``, ``argsort`` and ``topk``: values in order along a dim, with where they came from.

The order is stable (ties keep their order of appearance, descending too) and NaN counts as the
largest value, as torch's CPU sort orders them; ``topk`` takes the first ``k`` of that order
(torch's own choice among ties is its kernel's, not a documented rule). The values get a node
(``SortBackward0``, ``SortBackward1`` when ``stable=`` was given, ``TopkBackward0``) that saves
``dim`` (a negative dim read as unsigned 64-bit, as torch shows it), the ``indices`` and the input's
sizes; its backward puts each incoming gradient back where its value came from, zeros elsewhere.
The results are named tuples printed like torch's ``torch.return_types.sort`` and ``.topk``.

>>> import ownership
>>> ownership.tensor([3.0, 1.0, 2.0]).sort(descending=True)
torch.return_types.sort(
values=tensor([3., 2., 1.]),
indices=tensor([0, 2, 1]))
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.common import inference_kernel, needs_grad, run_op, wrap
from ownership.ops.indexing import embed
from ownership.ops.op_table import ops


class _Selection(NamedTuple):
    values: Tensor
    indices: Tensor


class sort_result(_Selection):  # torch's class is ``torch.return_types.sort``
    """``(values, indices)`` of ``sort``, named and printed like ``torch.return_types.sort``."""

    __slots__ = ()

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"


class topk_result(sort_result):
    """``(values, indices)`` of ``topk``, named and printed like ``torch.return_types.topk``."""

    __slots__ = ()


sort_result.__name__ = sort_result.__qualname__ = "sort"
topk_result.__name__ = topk_result.__qualname__ = "topk"


def order(arr: NDArray[Any], axis: int, descending: bool) -> NDArray[np.int64]:
    """The stable order of ``arr`` along ``axis`` (NaN last ascending, first descending).

    Descending: the stable ascending order of the reversed array, reversed, keeps equal values
    in their order of appearance (a plain reversal would reverse them)."""
    if not descending:
        return np.argsort(arr, axis=axis, kind="stable").astype(np.int64, copy=False)
    backwards = np.argsort(np.flip(arr, axis), axis=axis, kind="stable")
    out: NDArray[np.int64] = (arr.shape[axis] - 1 - np.flip(backwards, axis)).astype(np.int64)
    return out


def _key(indices: NDArray[Any], axis: int) -> tuple[NDArray[Any], ...]:
    """The advanced-indexing key that puts each element of an ``indices``-shaped array at its
    index along ``axis`` (and at its own position along the other dims)."""
    grids = np.ogrid[tuple(slice(n) for n in indices.shape)]
    return tuple(indices if d == axis else grid for d, grid in enumerate(grids))


def _bw_select(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``value_selecting_reduction_backward``: zeros of the input's sizes with each
    gradient written where its value was taken from."""
    shape, gr = s["self_sym_sizes"], g[0]
    if not shape:
        return (gr,)
    dim = s["dim"]
    axis = layout.wrap_dim(as_given(dim), len(shape))
    return (embed(gr, shape, _key(s["indices"]._data, axis)),)


def _selected(
    t: Tensor, picks: NDArray[Any], axis: int, name: str, dim: int, kind: type[sort_result]
) -> Any:
    """The values of ``t`` at ``picks`` along ``axis`` and the indices, the values recorded
    under ``name``."""
    arr = t._data
    found: list[Tensor] = []  # the indices, which the kernel makes beside the values

    def kernel() -> Tensor:
        vals, kept = np.take_along_axis(arr, picks, axis=axis) if arr.ndim else arr.copy(), picks
        if kind is sort_result:  # torch's sort lays out values and indices as ``t``
            vals, kept = _laid_out_as(t, vals), _laid_out_as(t, picks)
        values = wrap(vals, t.dtype)
        found.append(wrap(kept, dtypes.int64))
        if (kind is sort_result or not arr.ndim) and inference_kernel(t):
            # torch's sort kernel (topk's of a 0-d tensor too) copies ``t`` into its fresh
            # values with a copy_ autograd sees (CopyBackwards when ``t`` requires grad), then
            # sorts them in place unseen
            ordered = vals.copy()  # ``values`` holds ``vals`` itself
            ops.copy_(values, t)
            values._data[...] = ordered
        return values

    recorded = needs_grad(t)
    values = run_op(
        (t,),
        recorded,
        kernel,
        name,
        _bw_select,
        {"dim": as_saved(dim), "self_sym_sizes": tuple(arr.shape)} if recorded else None,
        after=lambda node, values: node.save("indices", found[0]),
    )
    return kind(values, found[0])


def _laid_out_as(t: Tensor, values: NDArray[Any]) -> NDArray[Any]:
    """``values`` (of ``t``'s shape) in fresh memory laid out as ``preserve_format`` lays out a
    copy of ``t`` (:func:`~ownership.core.layout.preserved`)."""
    laid = layout.preserved(t._data, t._stride(), values.dtype)
    laid[...] = values
    return laid


def _sorted_indices(t: Tensor, dim: int, descending: bool) -> tuple[int, NDArray[np.int64]]:
    """``dim`` wrapped, and the stable order of ``t`` along it (a 0-d tensor's is 0)."""
    arr = t._data
    axis = layout.wrap_dim(dim, arr.ndim)
    return axis, order(arr, axis, descending) if arr.ndim else np.zeros((), np.int64)


def sort(t: Tensor, dim: int = -1, descending: bool = False, stable: Any = False) -> Any:
    """``(values, indices)`` of ``t`` ordered along ``dim``; ``stable`` is None or a bool when
    torch's ``stable=`` overload was called (``SortBackward1``), ``False`` otherwise."""
    axis, picks = _sorted_indices(t, dim, descending)
    name = "SortBackward0" if stable is False else "SortBackward1"
    return _selected(t, picks, axis, name, dim, sort_result)


def argsort(t: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices of ``sort`` (no node: indices are not differentiable)."""
    return wrap(_laid_out_as(t, _sorted_indices(t, dim, descending)[1]), dtypes.int64)


def topk(t: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """The ``k`` largest (or smallest) values along ``dim`` and their indices, in order
    (``sorted=False`` leaves the order to the kernel: this one keeps it sorted)."""
    arr = t._data
    axis = layout.wrap_dim(dim, arr.ndim)
    size = arr.shape[axis] if arr.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if t.dtype is dtypes.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if arr.ndim:
        picks = np.take(order(arr, axis, largest), np.arange(k), axis=axis)
    else:
        picks = np.zeros((), np.int64)
    return _selected(t, picks, axis, "TopkBackward0", dim, topk_result)
