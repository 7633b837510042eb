"""``nan_to_num`` and ``nan_to_num_``: NaN, +inf and -inf replaced by finite numbers.

By default NaN becomes 0 and the infinities the largest and smallest finite values of the
tensor's dtype; the replacements are given as numbers (``nan=``, ``posinf=``, ``neginf=``) and
are rounded into the dtype (a replacement beyond float32's range becomes an infinity again, as in
torch). Integer and bool tensors hold no NaN or infinity: they come back as a copy. The node
``NanToNumBackward0`` saves ``self``; the gradient flows where ``self`` was finite, 0 elsewhere.

>>> import ownership
>>> ownership.tensor([float("nan"), float("inf"), 1.5]).nan_to_num(posinf=9.0)
tensor([0.0000, 9.0000, 1.5000])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import run_inplace
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.ops.common import needs_grad, refuse_out_call, run_op, wrap
from ownership.ops.inplace import snapshot


def _bw_nan_to_num(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's formula: ``grad * isfinite(self)``."""
    return (g[0] * OPS["isfinite"](s["self"]),)


def _replaced(t: Tensor, nan: Any, posinf: Any, neginf: Any) -> NDArray[Any]:
    """``t``'s values with the non-finite ones replaced (a new array of ``t``'s dtype)."""
    arr = t._data
    if not t.dtype.is_floating_point:
        return arr.copy()
    info = np.finfo(arr.dtype)
    kind = arr.dtype.type
    out: NDArray[Any] = np.nan_to_num(
        arr,
        copy=True,
        nan=kind(0.0 if nan is None else float(nan)),
        posinf=kind(info.max if posinf is None else float(posinf)),
        neginf=kind(info.min if neginf is None else float(neginf)),
    )
    return out


def nan_to_num(t: Tensor, nan: Any = None, posinf: Any = None, neginf: Any = None) -> Tensor:
    """``t`` with NaN, +inf and -inf replaced (``NanToNumBackward0``, saves ``self``)."""
    refuse_out_call("nan_to_num", t)  # torch's kernel writes through nan_to_num_out
    return run_op(
        (t,),
        needs_grad(t),
        lambda: wrap(_replaced(t, nan, posinf, neginf), t.dtype),
        "NanToNumBackward0",
        _bw_nan_to_num,
        save=lambda node: node.save("self", t),
    )


def nan_to_num_(t: Tensor, nan: Any = None, posinf: Any = None, neginf: Any = None) -> Tensor:
    """``nan_to_num`` written into ``t`` (the node saves ``t`` as it was: a clone)."""

    def save(node: OpNode) -> None:
        node.save("self", snapshot(t))

    return run_inplace(
        t,
        (),
        needs_grad(t),
        lambda: _replaced(t, nan, posinf, neginf),
        t.dtype,
        "NanToNumBackward0",
        _bw_nan_to_num,
        None,
        save,
    )
