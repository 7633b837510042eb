"""Norms and moments: ``norm`` (``LinalgVectorNormBackward0``), ``var`` (``VarBackward0``) and
``var_mean`` (one ``VarMeanBackward0`` node with two outputs), and ``threshold``
(``ThresholdBackward0``). Forward in numpy (float64 accumulation, cast back), backward with
tensor ops, so that it is differentiable again.

>>> import ownership
>>> x = ownership.tensor([3.0, 4.0], requires_grad=True)
>>> x.norm(), x.var(), ownership.var_mean(x)[1].grad_fn.name()
(tensor(5., grad_fn=<LinalgVectorNormBackward0>), tensor(0.5000, grad_fn=<VarBackward0>), 'VarMeanBackward0')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership._tensor import Tensor
from ownership.autograd.node import Grads, OpNode, Saved, gradient_edge
from ownership.op_registry import OPS
from ownership.ops.common import needs_grad, record, wrap

__all__ = ["norm", "threshold", "var", "var_mean"]


def _axes(t: Tensor, dim: Any) -> tuple[int, ...] | None:
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    n = max(t._data.ndim, 1)
    return tuple(d % n for d in dims)


def _keep(g: Tensor, shape: tuple[int, ...], axes: tuple[int, ...] | None, keepdim: bool) -> Tensor:
    """``g`` reshaped so that it broadcasts against the input (reduced dims back as size 1)."""
    if axes is None or keepdim or not shape:
        return g if axes is not None or not shape else g.reshape([1] * len(shape))
    kept = [1 if i in axes else n for i, n in enumerate(shape)]
    return g.reshape(kept)


def norm(
    t: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Tensor:
    """The vector p-norm over ``dim`` (all elements by default); ``'fro'`` is 2."""
    order = 2.0 if p in ("fro", None) else float(p)
    if not t.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {t.dtype.short.capitalize()}"
        )
    axes = _axes(t, dim)
    x = np.abs(t._data.astype(np.float64))
    if order == np.inf:
        value = x.max(axis=axes, keepdims=keepdim)
    elif order == 0:
        value = (x != 0).sum(axis=axes, keepdims=keepdim).astype(np.float64)
    else:
        value = (x**order).sum(axis=axes, keepdims=keepdim) ** (1.0 / order)
    out = wrap(np.asarray(value, dtype=t.dtype.np), t.dtype)
    if needs_grad(t):
        shape = tuple(t._data.shape)

        def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
            x, result = s["self"], s["result"]
            r = _keep(result, shape, axes, keepdim)
            go = _keep(g[0], shape, axes, keepdim)
            if order == np.inf:
                hit = (x.abs() == r).to(x.dtype)
                count = hit.sum(axes, keepdim=True) if axes is not None else hit.sum()
                return (OPS["sign"](x) * hit * go / count,)
            if order == 2:
                scale = OPS["where"](r == 0, 0.0, go / r)
                return (x * scale,)
            if order == 1:
                return (OPS["sign"](x) * go,)
            scale = OPS["where"](r == 0, 0.0, go / r ** (order - 1))
            return (x * x.abs() ** (order - 2) * scale,)

        node = record(out, "LinalgVectorNormBackward0", (t,), backward, {"ord": order})
        node.save("self", t)
        node.save("result", out, is_output=True)
    return out


def _moments(t: Tensor, dim: Any, correction: float, keepdim: bool) -> tuple[Any, Any, int]:
    axes = _axes(t, dim)
    x = t._data.astype(np.float64)
    n = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).sum(axis=axes, keepdims=keepdim) / max(n - correction, 0)
    if not keepdim:
        mean = mean.reshape(var.shape) if axes is not None else mean.reshape(())
    return np.asarray(var, dtype=t.dtype.np), np.asarray(mean, dtype=t.dtype.np), n


def _correction(unbiased: Any, correction: Any) -> float:
    if correction is not None:
        return float(correction)
    return 1.0 if unbiased in (None, True) else 0.0


def var(
    t: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The variance over ``dim`` (all elements by default), Bessel-corrected unless told not."""
    if isinstance(dim, bool):  # var(unbiased) called positionally
        dim, unbiased = None, dim
    c = _correction(unbiased, correction)
    v, _, n = _moments(t, dim, c, keepdim)
    out = wrap(v, t.dtype)
    if needs_grad(t):
        axes, shape = _axes(t, dim), tuple(t._data.shape)

        def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
            x = s["self"]
            centred = x - x.mean(axes, keepdim=True) if axes is not None else x - x.mean()
            return (_keep(g[0], shape, axes, keepdim) * centred * (2.0 / (n - c)),)

        node = record(out, "VarBackward0", (t,), backward, {"correction": c, "keepdim": keepdim})
        node.save("self", t)
    return out


def var_mean(
    t: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple[Tensor, Tensor]:
    """``(var, mean)``, both outputs of one ``VarMeanBackward0`` node."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    c = _correction(unbiased, correction)
    v, m, n = _moments(t, dim, c, keepdim)
    var_out, mean_out = wrap(v, t.dtype), wrap(m, t.dtype)
    if needs_grad(t):
        axes, shape = _axes(t, dim), tuple(t._data.shape)

        def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
            x = s["self"]
            total = None
            if g[0] is not None:
                centred = x - x.mean(axes, keepdim=True) if axes is not None else x - x.mean()
                total = _keep(g[0], shape, axes, keepdim) * centred * (2.0 / (n - c))
            if g[1] is not None:
                part = _keep(g[1], shape, axes, keepdim).expand(shape) / n
                total = part if total is None else total + part
            return (total,)

        node = OpNode("VarMeanBackward0", (gradient_edge(t),), backward, {}, num_outputs=2)
        node.input_dtypes = (t.dtype,)
        node.save("self", t)
        for nr, result in enumerate((var_out, mean_out)):
            result._grad_fn = node
            result._requires_grad = True
            result._output_nr = nr
    return var_out, mean_out


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``input`` where it is above ``threshold``, else ``value`` (``ThresholdBackward0``)."""
    x = input._data
    out = wrap(np.where(x > threshold, x, np.asarray(value, dtype=x.dtype)), input.dtype)
    if needs_grad(input):

        def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
            return (g[0] * (s["self"] > threshold).to(g[0].dtype),)

        node = record(out, "ThresholdBackward0", (input,), backward, {"threshold": threshold})
        node.save("self", input)
    return out
