"""``nansum``: the sum with NaN counted as 0 (``NansumBackward0``).

Values and dtypes as ``sum``'s (integers and bools sum in int64 unless ``dtype=`` says
otherwise; the same dims, ``keepdim`` and refusals), with NaN left out. The node saves ``self``,
``dim`` (None for all dims, else the dims as given, a negative one read as unsigned 64-bit) and
``keepdim``; the gradient is the incoming gradient spread back over the input, 0 where the input
was NaN.

>>> import ownership
>>> ownership.tensor([1.5, float("nan"), 2.0]).nansum()
tensor(3.5000)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership.core import layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.dtypes import dtype as DType
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.common import needs_grad, run_op, wrap, written_by_kernel
from ownership.ops.op_table import ops
from ownership.ops.reduction import sum_of


def _bw_nansum(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``nansum_backward``: ``g`` unsqueezed at the summed dims (unless kept), expanded
    to ``self``'s shape, times ``self.isnan().logical_not()``."""
    gr, dts, x = g[0], node.input_dtypes, s["self"]
    if dts is not None and dts[0] is not None:
        gr = gr.to(dts[0])
    shape = tuple(x._data.shape)
    dims, nd = s["dim"], len(shape)
    if dims is not None and not s["keepdim"] and nd:
        wrapped = sorted(layout.wrap_dim(as_given(d), nd) for d in dims)
        for d in wrapped or range(nd):  # no dims listed: all of them were summed
            gr = ops.unsqueeze(gr, d)
    return (ops.expand(gr, shape) * OPS["logical_not"](OPS["isnan"](x)),)


def nansum(
    t: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: DType | None = None
) -> Tensor:
    """The sum of ``t`` with NaN as 0, of all elements or over ``dim`` (``NansumBackward0``)."""

    def kernel() -> Tensor:
        arr = t._data
        filled = np.where(np.isnan(arr), 0, arr) if t.dtype.is_floating_point else arr
        every = dim is None and keepdim  # all dims summed and kept: no dims listed means all
        out = sum_of(wrap(filled, t.dtype), () if every else dim, keepdim, dtype=dtype)
        return written_by_kernel(out, t)  # the reduction's fill_ (sum_of's: of ``filled``)

    recorded = needs_grad(t)
    ctx = None
    if recorded:
        given = None if dim is None else (dim if isinstance(dim, tuple | list) else (dim,))
        saved_dim = None if given is None else tuple(as_saved(int(d)) for d in given)
        ctx = {"dim": saved_dim, "keepdim": keepdim}
    # an integer result (``dtype=``) is refused as the node is attached (``attach``)
    return run_op(
        (t,),
        recorded,
        kernel,
        "NansumBackward0",
        _bw_nansum,
        ctx,
        lambda node: node.save("self", t),
    )
