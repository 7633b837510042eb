"""softmax and log_softmax along a dim, stable (shifted by the max), saving their result."""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership import dtypes, layout
from ownership.op_registry import OPS
from ownership.ops.common import needs_grad, record, wrap
from ownership.tensor import Tensor


def _bw_softmax(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    r = s["result"]
    gr = g[0]
    return (r * (gr - (gr * r).sum(s["dim"], keepdim=True)),)


def _bw_log_softmax(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    r = s["result"]
    gr = g[0]
    return (gr - r.exp() * gr.sum(s["dim"], keepdim=True),)


def _prep(t: Tensor, dim: int | None, dtype: Any) -> tuple[Any, int, Any]:
    dt = dtype or t.dtype
    if not dt.is_floating_point:
        dt = dtypes.get_default_dtype()
        if dtype is None:
            raise NotImplementedError(
                f"\"softmax_lastdim_kernel_impl\" not implemented for '{t.dtype.short}'"
            )
    if dim is None:
        raise TypeError("softmax() missing required argument 'dim'")
    nd = t._data.ndim
    d = layout.wrap_dim(dim, nd)
    return t._data.astype(dt.np, copy=False), d, dt


def softmax(t: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """exp(x - max) / sum (``SoftmaxBackward0``)."""
    x, d, dt = _prep(t, dim, dtype)
    if x.ndim == 0:
        out_arr = np.ones_like(x)
    else:
        e = np.exp(x - np.max(x, axis=d, keepdims=True, initial=-np.inf))
        out_arr = e / e.sum(axis=d, keepdims=True)
    out = wrap(np.ascontiguousarray(out_arr), dt)  # torch returns a contiguous result
    if needs_grad(t):
        node = record(out, "SoftmaxBackward0", (t,), _bw_softmax, {"dim": d})
        node.save("result", out, is_output=True)
    return out


def log_softmax(t: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """x - max - log(sum(exp(x - max))) (``LogSoftmaxBackward0``)."""
    x, d, dt = _prep(t, dim, dtype)
    if x.ndim == 0:
        out_arr = np.zeros_like(x)
    else:
        sh = x - np.max(x, axis=d, keepdims=True, initial=-np.inf)
        out_arr = sh - np.log(np.exp(sh).sum(axis=d, keepdims=True))
    out = wrap(np.ascontiguousarray(out_arr), dt)  # torch returns a contiguous result
    if needs_grad(t):
        node = record(out, "LogSoftmaxBackward0", (t,), _bw_log_softmax, {"dim": d})
        node.save("result", out, is_output=True)
    return out


def register() -> None:
    """Install softmax and log_softmax in the Tensor registry."""
    OPS.update(softmax=softmax, log_softmax=log_softmax)
