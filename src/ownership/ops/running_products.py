"""``cumprod``: running products along a dim (``CumprodBackward0``), and ``cumprod_`` in place.

Dtypes as ``cumsum``'s (:mod:`ownership.ops.scans`): integers and bools multiply in int64 unless
``dtype=`` says otherwise, bool results are refused as torch's kernel refuses them. The node saves
``dim`` (a negative dim read as unsigned 64-bit), ``self`` and the ``result``. The gradient follows torch's three
formulas (no zero in the input; zeros, no graph wanted; zeros while building a graph of the
gradient), so that it is exact through zeros and agrees with torch's where NaN or an infinity
meets them.

>>> import ownership
>>> ownership.tensor([[1, 2, 3], [4, 0, 6]]).cumprod(1)
tensor([[1, 2, 6],
        [4, 0, 0]])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.grad_mode import is_grad_enabled
from ownership.core.inplace_rules import run_inplace
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.common import needs_grad, run_op, wrap
from ownership.ops.inplace import snapshot
from ownership.ops.op_table import ops
from ownership.ops.scans import (
    check_scan_in_place,
    refuse_bool_kernel,
    result_dtype,
    scan_layout,
    scan_result,
)

BOOL_KERNEL = "\"cumprod_out_cpu\" not implemented for 'Bool'"


def _running_products(arr: NDArray[Any], axis: int, dt: dtypes.dtype) -> NDArray[Any]:
    """The running products of ``arr`` along ``axis`` in ``dt``."""
    if arr.ndim == 0:
        return arr.astype(dt.np)
    return scan_layout(np.cumprod(arr, axis=axis, dtype=dt.np))


def _reversed_cumsum(w: Tensor, axis: int) -> Tensor:
    """``w.flip(axis).cumsum(axis).flip(axis)``: the sums from each position to the end, read
    through a reversed index (the engine's ops, so that it can be differentiated again)."""
    back = Tensor._wrap(np.arange(w.shape[axis] - 1, -1, -1, dtype=np.int64))
    key = (slice(None),) * axis + (back,)
    out: Tensor = ops.getitem(ops.cumsum(ops.getitem(w, key), axis), key)
    return out


def _first_zero_gradient(
    gr: NDArray[Any], x: NDArray[Any], y: NDArray[Any], axis: int
) -> NDArray[Any]:
    """torch's O(n) gradient for inputs with zeros, used when no graph of it is wanted: before a
    slice's first zero the reversed sums of ``y * g`` over ``x``; at the first zero the products
    up to it times the sums of ``g`` by the running products up to the second zero; 0 after."""
    with np.errstate(all="ignore"):  # NaN and infinities give torch's NaN, no numpy warning
        return _first_zero_arrays(gr, x, y, axis)


def _first_zero_arrays(
    gr: NDArray[Any], x: NDArray[Any], y: NDArray[Any], axis: int
) -> NDArray[Any]:
    w = y * gr
    zeros_before = np.cumsum(x == 0, axis=axis)
    before = zeros_before == 0
    rev = np.flip(np.cumsum(np.flip(np.where(before, w, 0), axis), axis=axis), axis)
    out = np.where(before, rev / x, np.zeros_like(gr))
    mask = zeros_before == 1
    first = np.argmax(mask, axis=axis)[..., None].swapaxes(-1, axis)  # 0 when there is none
    first_mask = np.zeros_like(mask)
    np.put_along_axis(first_mask, first, True, axis=axis)
    first_mask &= mask
    mask &= ~first_mask
    after = np.cumprod(np.where(mask, x, 1), axis=axis) * np.where(zeros_before != 1, 0, gr)
    upto = np.take_along_axis(y, np.maximum(first - 1, 0), axis=axis)
    upto = np.where(first == 0, 1, upto)
    value = np.sum(after, axis=axis, keepdims=True) * upto
    result: NDArray[Any] = np.where(first_mask, value, out).astype(gr.dtype, copy=False)
    return result


def _omitted_products_gradient(gr: Tensor, x: Tensor, axis: int) -> Tensor:
    """``grad[k] = sum over j >= k of g[j] * prod(x[i] for i <= j, i != k)`` from the engine's
    ops (differentiable again): the dim moved last, row ``k`` of an ``n x n`` matrix holds ``x``
    with ``x[k]`` replaced by 1, and its running products are summed against ``g`` for j >= k."""
    x_last, g_last = ops.transpose(x, axis, -1), ops.transpose(gr, axis, -1)
    n = x_last.shape[-1]
    rows = ops.expand(ops.unsqueeze(x_last, -2), (*x_last.shape[:-1], n, n))
    one_out = OPS["where"](Tensor._wrap(np.eye(n, dtype=bool)), 1.0, rows)
    later = Tensor._wrap(np.triu(np.ones((n, n), dtype=bool)))  # j >= k
    terms = OPS["where"](later, ops.cumprod(one_out, -1) * ops.unsqueeze(g_last, -2), 0.0)
    out: Tensor = ops.transpose(ops.sum(terms, (-1,)), axis, -1)
    return out


def _bw_cumprod(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``cumprod_backward``, branch for branch (their results differ where NaN or an
    infinity meets a zero): nothing to do for one element along the dim; without a zero in the
    input, the reversed sums of ``result * g`` over the input; with one, an O(n) formula, or,
    while a graph of the gradient is being built, the omitted products."""
    gr, dts = g[0], node.input_dtypes
    if dts is not None and dts[0] is not None:  # torch: ``grad.to(self.scalar_type())`` first
        gr = gr.to(dts[0])
    x, y = s["self"], s["result"]
    if x._data.size <= 1:
        return (gr,)
    dim = s["dim"]
    axis = layout.wrap_dim(as_given(dim), gr._data.ndim)
    if x._data.shape[axis] == 1:
        return (gr,)
    if not (x._data == 0).any():
        return (_reversed_cumsum(y * gr, axis) / x,)
    if not is_grad_enabled():
        return (wrap(_first_zero_gradient(gr._data, x._data, y._data, axis), gr.dtype),)
    return (_omitted_products_gradient(gr, x, axis),)


def cumprod(t: Tensor, dim: int, dtype: dtypes.dtype | None = None) -> Tensor:
    """The running products of ``t`` along ``dim`` (``CumprodBackward0``; saves ``dim``,
    ``self`` and ``result``)."""
    dt = result_dtype(t, dtype)

    def kernel() -> Tensor:  # an integer result of a ``t`` that needs grad: ``attach`` refuses it
        axis = layout.wrap_dim(dim, t._data.ndim)
        refuse_bool_kernel(t, dt, BOOL_KERNEL)
        return scan_result(wrap(_running_products(t._data, axis, dt), dt), t)

    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        kernel,
        "CumprodBackward0",
        _bw_cumprod,
        {"dim": as_saved(dim)} if recorded else None,
        lambda node: node.save("self", t),
        OpNode.save_result,
    )


def cumprod_(t: Tensor, dim: int, dtype: dtypes.dtype | None = None) -> Tensor:
    """``cumprod`` written into ``t`` (``dtype``, if given, must be ``t``'s)."""
    axis = layout.wrap_dim(dim, t._data.ndim)

    def check_args() -> None:
        check_scan_in_place(t, dtype, BOOL_KERNEL)

    def save(node: OpNode) -> None:
        node.save("self", snapshot(t))

    return run_inplace(
        t,
        (),
        needs_grad(t),
        lambda: _running_products(t._data, axis, t.dtype),
        t.dtype,
        "CumprodBackward0",
        _bw_cumprod,
        {"dim": as_saved(dim)},
        save,
        save_result=True,
        check_overlap=False,
        check_args=check_args,
    )
