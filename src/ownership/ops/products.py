"""``prod``: the product of all elements (``ProdBackward0``) or along a dim (``ProdBackward1``).

Integer and bool tensors multiply in int64 unless ``dtype=`` says otherwise. Both nodes save
``self`` and the result; the gradient is ``grad * result / self`` when no element of ``self`` is
zero, and otherwise torch's zero-safe form: the product of the other elements of the slice (zero
where a slice holds two zeros or more), made of ops so that it has a gradient too.

>>> import ownership
>>> ownership.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(1)
tensor([ 2., 12.])
"""

from __future__ import annotations

import numpy as np

from ownership.core import dtypes, grad_mode, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.common import needs_grad, run_op, wrap, written_by_kernel
from ownership.ops.op_table import ops
from ownership.ops.scans import result_dtype


def _others_product(x: Tensor, axis: int | None) -> Tensor:
    """At each position, the product of the other elements of its slice along ``axis`` (all of
    ``x`` for None): torch's ``prod_safe_zeros_backward``, differentiable, in one pass. With
    ``p`` the product of a slice's nonzero elements: ``p / x`` in a slice without zeros, ``p`` at
    the zero of a slice with one zero (0 elsewhere in it), 0 in a slice with more."""
    zero = x._data == 0
    count = np.sum(zero, axis=axis, keepdims=True)
    mask = Tensor._wrap(zero, dtypes.bool_)
    filled = ops.masked_fill(x, mask, 1)
    p = prod(filled) if axis is None else prod(filled, axis, True)
    no_zero = np.broadcast_to(count == 0, zero.shape).astype(x._data.dtype)
    lone_zero = (zero & (count == 1)).astype(x._data.dtype)
    ratio: Tensor = p / filled
    out: Tensor = ratio * Tensor._wrap(no_zero, x.dtype) + p * Tensor._wrap(lone_zero, x.dtype)
    return out


def _grad(gr: Tensor, s: Saved, axis: int | None) -> Tensor:
    """torch's ``prod_backward``: ``gr * result / self`` if ``self`` has no zero, else zero-safe
    (``gr`` and ``result`` already have ``self``'s number of dims)."""
    x, result = s["self"], s["result"]
    if x._data.ndim == 0:
        return gr
    if np.all(x._data != 0):
        ratio: Tensor = result / x
        return gr * ratio
    if axis is None:
        # torch's product of all elements: zeros where two or more are zero (outside
        # create_graph), else its formula over ``self.contiguous().view(-1)``, then ``view_as``
        if not grad_mode.is_grad_enabled() and np.count_nonzero(x._data == 0) > 1:
            return Tensor._wrap(np.zeros(x._data.shape, x._data.dtype), x.dtype)
        flat: Tensor = gr * _others_product(x.contiguous().view(-1), None)
        return flat.view(tuple(x._data.shape))
    out: Tensor = gr * _others_product(x, axis)
    return out


def _bw_prod_all(node: OpNode, s: Saved, g: Grads) -> Grads:
    return (_grad(g[0], s, None),)


def _bw_prod_dim(node: OpNode, s: Saved, g: Grads) -> Grads:
    x = s["self"]
    if x._data.ndim == 0:
        return (g[0],)
    dim = s["dim"]
    axis = layout.wrap_dim(as_given(dim), x._data.ndim)
    gr, result = g[0], s["result"]
    if not s["keepdim"]:
        gr, result = gr.unsqueeze(axis), result.unsqueeze(axis)
    return (_grad(gr, {"self": x, "result": result}, axis),)


def prod(
    t: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: dtypes.dtype | None = None
) -> Tensor:
    """The product of all elements (``dim=None``: ``ProdBackward0``) or along ``dim``
    (``ProdBackward1``); both save ``self`` and the result."""
    dt = result_dtype(t, dtype)

    def kernel() -> Tensor:  # an integer result of a ``t`` that needs grad: ``attach`` refuses it
        arr = t._data
        if dim is None:
            out = wrap(np.multiply.reduce(arr, axis=None, dtype=dt.np), dt)
        else:
            axis = layout.wrap_dim(dim, arr.ndim)
            if arr.ndim == 0:
                out = wrap(arr.astype(dt.np), dt)
            else:
                product = np.prod(arr, axis=axis, dtype=dt.np, keepdims=keepdim)
                out = wrap(layout.as_row_major(product), dt)
        return written_by_kernel(out, t)  # the reduction's fill_ of its identity

    def save(node: OpNode) -> None:
        node.save("self", t)

    if dim is None:
        return run_op(
            (t,),
            needs_grad(t),
            kernel,
            "ProdBackward0",
            _bw_prod_all,
            None,
            save,
            OpNode.save_result,
        )
    recorded = needs_grad(t)
    ctx = {"dim": as_saved(dim), "keepdim": keepdim} if recorded else None
    return run_op(
        (t,), recorded, kernel, "ProdBackward1", _bw_prod_dim, ctx, save, OpNode.save_result
    )
