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

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ownership import dtypes, layout
from ownership._tensor import Tensor
from ownership.autograd.node import Grads, OpNode, Saved, gradient_edge
from ownership.op_registry import OPS
from ownership.ops.common import needs_grad, record, wrap
from ownership.ops.reduction import dims_of, saved_dims

__all__ = ["norm", "threshold", "var", "var_mean", "vector_norm"]

# numpy's reductions as ufunc reduces (typed loosely: numpy's stubs want a literal ``keepdims``)
_sum: Callable[..., Any] = np.add.reduce
_max: Callable[..., Any] = np.maximum.reduce
_min: Callable[..., Any] = np.minimum.reduce

_VECTOR_NORM = "linalg.vector_norm"
_MATRIX_NORM = "linalg.matrix_norm"


def _axes(t: Tensor, dim: Any) -> tuple[int, ...] | None:
    """numpy's axes of a reduction over ``dim`` (None: all), with torch's dim rules and errors."""
    dims = dims_of(t, dim)
    return dims if dims is not None and t._data.ndim else None


def _count(t: Tensor, axes: tuple[int, ...] | None) -> int:
    """How many elements each result of a reduction over ``axes`` reduces."""
    shape = t._data.shape
    return t._data.size if axes is None else math.prod(shape[a] for a in axes)


def _keep(g: Tensor, shape: tuple[int, ...], axes: tuple[int, ...] | None, keepdim: bool) -> Tensor:
    """``g`` reshaped so that it broadcasts against the input (reduced dims back as size 1)."""
    if axes is None or keepdim or not shape:
        return g if axes is not None or not shape else g.reshape([1] * len(shape))
    kept = [1 if i in axes else n for i, n in enumerate(shape)]
    return g.reshape(kept)


def norm(
    t: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Tensor:
    """``torch.norm``: the vector p-norm over ``dim`` (all elements by default), ``'fro'`` as the
    2-norm; the matrix norms (``'nuc'``, or ``'fro'`` over more than two dims) are refused."""
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return vector_norm(t, 2, dims, keepdim, dtype)
        _matrix_norm_refusal(t, p, list(range(t._data.ndim)) if dims is None else list(dims))
    return vector_norm(t, 2.0 if p is None else p, dims, keepdim, dtype)


def _matrix_norm_refusal(t: Tensor, ord: str, dims: list[Any]) -> None:
    """torch's ``linalg.matrix_norm`` checks, in its order; what passes them is not supported."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"{_MATRIX_NORM}: Order {ord} not supported.")
    if t._data.ndim < 2:
        raise RuntimeError(f"{_MATRIX_NORM}: The input tensor A must have at least 2 dimensions.")
    if len(dims) != 2:
        raise RuntimeError(f"{_MATRIX_NORM}: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    raise RuntimeError(f"norm(p={ord!r}) over a matrix is not supported by ownership")


def _checked_dtype(t: Tensor, dtype: Any) -> dtypes.dtype:
    """The dtype a vector norm computes in: ``t``'s, or ``dtype`` (torch's refusals)."""
    if not t.dtype.is_floating_point:
        raise RuntimeError(
            f"{_VECTOR_NORM}: Expected a floating point or complex tensor as input. "
            f"Got {t.dtype.short.capitalize()}"
        )
    if dtype is None:
        return t.dtype
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{_VECTOR_NORM}: dtype should be floating point or complex, but got "
            f"{dtype.short.capitalize()}"
        )
    if dtypes.promote_types(t.dtype, dtype) is not dtype:
        raise RuntimeError(
            f"{_VECTOR_NORM}: the dtype of the input ({t.dtype.short.capitalize()}) should be "
            f"convertible without narrowing to the specified dtype ({dtype.short.capitalize()})"
        )
    return dtype


def _no_identity(t: Tensor, order: float, axes: tuple[int, ...] | None) -> None:
    """torch's refusal of an inf norm over an empty dim (max and min have no identity)."""
    if t._data.size:
        return
    if axes is None:
        raise RuntimeError(
            f"{_VECTOR_NORM} cannot compute the {order:g} norm on an empty tensor because the "
            "operation does not have an identity"
        )
    for a in axes:
        if t._data.shape[a] == 0:
            raise RuntimeError(
                f"{_VECTOR_NORM} cannot compute the {order:g} norm on the dimension {a}because "
                "this dimension is empty and the operation does not have an identity"
            )


def vector_norm(t: Tensor, ord: Any, dim: Any, keepdim: bool, dtype: Any = None) -> Tensor:
    """``linalg.vector_norm``: ``LinalgVectorNormBackward0``, which shows ``ord`` and ``dim`` as
    given (``dim`` None for all elements) and ``keepdim``; computed in float64, rounded once into
    ``dtype`` (the gradient reaches ``t`` in its own dtype)."""
    dt = _checked_dtype(t, dtype)
    order = float(ord)
    axes = _axes(t, dim)
    if math.isinf(order):
        _no_identity(t, order, axes)
    x = np.abs(t._data.astype(np.float64))
    if order == math.inf:
        value = _max(x, axis=axes, keepdims=keepdim)
    elif order == -math.inf:
        value = _min(x, axis=axes, keepdims=keepdim)
    elif order == 0:
        value = _sum(x != 0, axis=axes, keepdims=keepdim, dtype=np.float64)
    else:
        value = _sum(x**order, axis=axes, keepdims=keepdim) ** (1.0 / order)
    out = wrap(np.asarray(value, dtype=dt.np), dt)
    if needs_grad(t):
        shape = tuple(t._data.shape)

        def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
            if order == 0:  # torch's norm_backward: no gradient at all (``.grad`` stays None)
                return (None,)
            x, result = s["self"], s["result"]
            r = _keep(result, shape, axes, keepdim)
            go = _keep(g[0], shape, axes, keepdim)
            if math.isinf(order):
                hit = (x.abs() == r).to(x.dtype)
                count = hit.sum(axes, keepdim=True) if axes is not None else hit.sum()
                grad = OPS["sign"](x) * hit * go / count
            elif order == 2:
                grad = x * OPS["where"](r == 0, 0.0, go / r)
            elif order == 1:
                grad = OPS["sign"](x) * go
            else:
                scale = OPS["where"](r == 0, 0.0, go / r ** (order - 1))
                grad = x * x.abs() ** (order - 2) * scale
            return (grad if grad.dtype is t.dtype else grad.to(t.dtype),)

        saved = {
            "dim": None if dim is None else saved_dims(dim),
            "keepdim": keepdim,
            "ord": ord,
        }
        node = record(out, "LinalgVectorNormBackward0", (t,), backward, saved)
        node.save("self", t)
        node.save("result", out, is_output=True)
    return out


def _correction(unbiased: Any, correction: Any) -> tuple[Any, float]:
    """The correction as torch's node shows it, and as computed: the overloads that take
    ``unbiased`` (given as True or False) correct by 1 or 0; the other shows ``correction`` as
    given (None, the default: 1)."""
    shown = correction if unbiased is None else int(bool(unbiased))
    return shown, 1.0 if shown is None else float(shown)


def _moments(
    t: Tensor, axes: tuple[int, ...] | None, correction: float, keepdim: bool, name: str
) -> tuple[Any, Any, int]:
    """Variance and mean over ``axes`` (float64 sums, rounded once into ``t``'s dtype), and how
    many elements each reduces; torch's warning when the degrees of freedom are not positive."""
    if not t.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    x = t._data.astype(np.float64)
    n = _count(t, axes)
    if n - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )
    mean = _sum(x, axis=axes, keepdims=True) / n
    var = _sum((x - mean) ** 2, axis=axes, keepdims=keepdim) / max(n - correction, 0)
    if not keepdim:
        mean = mean.reshape(np.shape(var))
    return np.asarray(var, dtype=t.dtype.np), np.asarray(mean, dtype=t.dtype.np), n


def _given_dims(t: Tensor, dim: Any) -> tuple[int, ...] | None:
    """The dims of a ``var`` as given (None: none given), wrapped: torch's backward reads these,
    not the dims reduced (an empty list reduces all dims but counts as reducing one element)."""
    if dim is None:
        return None
    ds = dim if isinstance(dim, tuple | list) else (dim,)
    return tuple(sorted(layout.wrap_dim(int(d), t._data.ndim) for d in ds))


def _var_grad(
    g: Tensor, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool, c: float
) -> Tensor:
    """torch's ``var_backward``, step for step: ``2 / (n - c) * g * (x - mean)``; over all
    elements with no degree of freedom, ``g`` times nan where ``x`` is its mean, else inf."""
    shape = tuple(x._data.shape)
    if dims is None or not shape:
        dof = x._data.size - c
        if dof <= 0:
            where: Tensor = OPS["where"](x == x.mean(), math.nan, math.inf)
            return g * where
        return 2.0 / dof * g * (x - x.mean())
    if not keepdim and len(shape) > 1:
        for d in dims:
            g = g.unsqueeze(d)
    dof = math.prod(shape[d] for d in dims) - c
    factor = 2.0 / dof if dof else math.inf  # C's double division of 2 by +0.0
    return factor * g * (x - x.mean(dims, keepdim=True))


def var(
    t: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The variance over ``dim`` (all elements by default), corrected by 1 unless told otherwise
    (``VarBackward0``, which shows ``dim`` and ``correction`` as torch's does: see
    :func:`_correction`)."""
    shown, c = _correction(unbiased, correction)
    axes = _axes(t, dim)
    v, _, _ = _moments(t, axes, c, keepdim, "var")
    out = wrap(v, t.dtype)
    if needs_grad(t):
        dims = _given_dims(t, dim)

        def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
            return (_var_grad(g[0], s["self"], dims, keepdim, c),)

        saved = {
            "correction": shown,
            "dim": None if dim is None else saved_dims(dim),
            "keepdim": keepdim,
        }
        node = record(out, "VarBackward0", (t,), backward, saved)
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
    """``(var, mean)``, both outputs of one ``VarMeanBackward0`` node (saved values as
    :func:`var`'s)."""
    shown, c = _correction(unbiased, correction)
    axes = _axes(t, dim)
    v, m, n = _moments(t, axes, c, keepdim, "var_mean")
    var_out, mean_out = wrap(v, t.dtype), wrap(m, t.dtype)
    if needs_grad(t):
        shape, dims = tuple(t._data.shape), _given_dims(t, dim)

        def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
            x = s["self"]
            total = None
            if g[0] is not None:
                total = _var_grad(g[0], x, dims, keepdim, c)
            if g[1] is not None:
                part = _keep(g[1], shape, axes, keepdim).expand(shape) / n
                total = part if total is None else total + part
            return (total,)

        saved = {
            "correction": shown,
            "dim": None if dim is None else saved_dims(dim),
            "keepdim": keepdim,
        }
        node = OpNode("VarMeanBackward0", (gradient_edge(t),), backward, saved, num_outputs=2)
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
