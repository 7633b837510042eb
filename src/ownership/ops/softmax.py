"""softmax and log_softmax along a dim, stable (shifted by the max), saving their result."""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership.core import layout
from ownership.core.autograd.node import Grads, OpNode, Saved, shared_context
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.backward_ops import log_softmax_backward_data, softmax_backward_data
from ownership.ops.common import needs_grad, run_op, wrap
from ownership.ops.op_table import ops

_DIMS = [shared_context({"dim": d}) for d in range(8)]

# the numpy functions of log_softmax's forward, read once: numpy's module ``__getattr__`` keeps
# CPython from caching a read of ``np.exp``, so each costs a dictionary lookup per call
_max_reduce, _sum_reduce, _exp, _log = np.maximum.reduce, np.add.reduce, np.exp, np.log
_subtract, _asarray, _NEG_INF = np.subtract, np.asarray, -np.inf


def dim_context(dim: int) -> Saved:
    """A softmax node's context ``{"dim": dim}``, ``dim`` as given and shown as torch shows it
    (:func:`~ownership.ops.argument_values.as_saved`): one shared object per dim from 0 to 7 (nothing
    writes it), a dict for any other."""
    return _DIMS[dim] if type(dim) is int and 0 <= dim < 8 else {"dim": as_saved(dim)}


def _saved_dim(s: Saved, result: Tensor) -> int:
    """The dim a softmax node reduced over, from the dim it shows (a dim of the result as it
    is, the common case, without the conversions)."""
    dim, ndim = s["dim"], result._data.ndim
    if type(dim) is int and 0 <= dim < ndim:
        return dim
    return layout.wrap_dim(as_given(dim), ndim)


def _bw_softmax(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d softmax(self) = result * (d - sum(d * result, dim)): torch's ``_softmax_backward_data``."""
    result = s["result"]
    return (softmax_backward_data(g[0], result, _saved_dim(s, result)),)


def _bw_log_softmax(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d log_softmax(self) = d - exp(result) * sum(d, dim): torch's ``_log_softmax_backward_data``."""
    result = s["result"]
    return (log_softmax_backward_data(g[0], result, _saved_dim(s, result)),)


def _prep(t: Tensor, dim: int | None, dtype: Any, name: str = "softmax") -> tuple[Tensor, int]:
    """``t`` in ``dtype`` (torch converts first: ``ToCopyBackward0``) and ``dim`` wrapped; torch's
    kernel refuses a non-empty tensor of a dtype that is not floating."""
    if dim is None:
        raise TypeError(f"{name}() missing required argument 'dim'")
    if dtype is not None and dtype is not t.dtype:
        t = ops.to(t, dtype)
    nd = t._data.ndim
    d = layout.wrap_dim(dim, nd)
    if not t.dtype.is_floating_point and t._data.size:  # torch's kernel: last dim or not, by name
        kernel = f"{name}_lastdim_kernel_impl" if d == max(nd, 1) - 1 else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{t.dtype.short}'")
    return t, d


def softmax(t: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """exp(x - max) / sum (``SoftmaxBackward0``)."""
    t, d = _prep(t, dim, dtype)

    def kernel() -> Tensor:
        x = t._data
        if x.ndim == 0:  # one element: 1, or nan for nan and inf (exp(x - x) / exp(x - x))
            e = np.exp(x - x)
            out_arr = e / e
        elif x.size == 0:
            out_arr = x.copy()
        else:
            e = np.exp(x - np.max(x, axis=d, keepdims=True, initial=-np.inf))
            out_arr = e / e.sum(axis=d, keepdims=True)
        return wrap(np.asarray(out_arr, order="C"), t.dtype)  # torch returns a contiguous result

    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        kernel,
        "SoftmaxBackward0",
        _bw_softmax,
        dim_context(dim) if recorded else None,  # type: ignore[arg-type]
        after=OpNode.save_result,
    )


def log_softmax(t: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """x - max - log(sum(exp(x - max))) (``LogSoftmaxBackward0``)."""
    t, d = _prep(t, dim, dtype, "log_softmax")
    return log_softmax_along(t, d, dim)


def log_softmax_along(t: Tensor, d: int, dim: int | None = None) -> Tensor:
    """:func:`log_softmax` of ``t`` over ``d`` once its arguments are checked: ``t`` of its
    result dtype, ``d`` a wrapped dim of it, floating unless empty (what ``_prep`` ensures);
    ``dim``: the dim as given, which the node shows (default ``d``)."""

    def kernel() -> Tensor:
        x = t._data
        if x.ndim == 0:  # one element: 0, or nan for nan and inf
            out_arr = (x - x) - np.log(np.exp(x - x))
        elif x.size == 0:
            out_arr = x.copy()
        else:
            sh = x - _max_reduce(x, axis=d, keepdims=True, initial=_NEG_INF)  # np.max's reduce
            total = _sum_reduce(_exp(sh), axis=d, keepdims=True)  # ndarray.sum's reduce
            # into the fresh arrays (nobody else holds them): the same values, two arrays fewer
            out_arr = _subtract(sh, _log(total, out=total), out=sh)
        return wrap(_asarray(out_arr, order="C"), t.dtype)  # torch returns a contiguous result

    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        kernel,
        "LogSoftmaxBackward0",
        _bw_log_softmax,
        dim_context(d if dim is None else dim) if recorded else None,
        after=OpNode.save_result,
    )
