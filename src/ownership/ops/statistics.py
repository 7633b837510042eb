"""Norms: ``norm`` (``LinalgVectorNormBackward0``), and ``threshold`` (``ThresholdBackward0``);
the reduction helpers the moments share (:mod:`ownership.ops.moments`). Forward in numpy
(float64 accumulation, cast back), backward with tensor ops, so that it is differentiable again.

>>> import ownership
>>> x = ownership.tensor([3.0, 4.0], requires_grad=True)
>>> x.norm()
tensor(5., grad_fn=<LinalgVectorNormBackward0>)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import run_inplace
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import number_arg, read_in_python, tensor_arg
from ownership.ops.common import (
    needs_grad,
    read_histories,
    refuse_out_call,
    run_op,
    wrap,
    written_by_kernel,
)
from ownership.ops.inplace import snapshot
from ownership.ops.reduction import dims_of, saved_dims

__all__ = [
    "_threshold",
    "axes_of",
    "count_over",
    "keep_dims",
    "norm",
    "threshold",
    "threshold_",
    "vector_norm",
]

# numpy's reductions as ufunc reduces (typed loosely: numpy's stubs want a literal ``keepdims``)
add_reduce: Callable[..., Any] = np.add.reduce
_max: Callable[..., Any] = np.maximum.reduce
_min: Callable[..., Any] = np.minimum.reduce

_VECTOR_NORM = "linalg.vector_norm"
_MATRIX_NORM = "linalg.matrix_norm"


def axes_of(t: Tensor, dim: Any) -> tuple[int, ...] | None:
    """numpy's axes of a reduction over ``dim`` (None: all), with torch's dim rules and errors."""
    dims = dims_of(t, dim)
    return dims if dims is not None and t._data.ndim else None


def count_over(t: Tensor, axes: tuple[int, ...] | None) -> int:
    """How many elements each result of a reduction over ``axes`` reduces."""
    shape = t._data.shape
    return t._data.size if axes is None else math.prod(shape[a] for a in axes)


def keep_dims(
    g: Tensor, shape: tuple[int, ...], axes: tuple[int, ...] | None, keepdim: bool
) -> Tensor:
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
    read_in_python(t, "layout", call=False)  # torch's Python function reads it first
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str) and not (p == "fro" and (dims is None or len(dims) <= 2)):
        _matrix_norm_refusal(t, p, list(range(t._data.ndim)) if dims is None else list(dims))
    read_histories((t,), {})  # torch's vector_norm reads the edges before its own checks
    return vector_norm(
        t, 2 if isinstance(p, str) else 2.0 if p is None else p, dims, keepdim, dtype
    )


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
    given (``dim`` None for all elements) and ``keepdim``; computed in float64 with each power
    and their sum rounded into ``dtype``, where torch's kernel holds them (a float32 norm of
    ``[1e20, 1e20]`` overflows to ``inf``, of ``[1e-30, 1e-30]`` underflows to 0), and the
    root rounded once into ``dtype``; the norm of single elements is their absolute value, as
    torch writes it (the gradient reaches ``t`` in its own dtype)."""
    order = float(ord)

    def kernel() -> Tensor:
        dt = _checked_dtype(t, dtype)
        axes = axes_of(t, dim)
        if math.isinf(order):
            _no_identity(t, order, axes)
        x = np.abs(t._data.astype(np.float64))
        single = count_over(t, axes) == 1 and (t._data.ndim or dim is None)
        if order == math.inf or (single and order != 0):
            value = _max(x, axis=axes, keepdims=keepdim)
        elif order == -math.inf:
            value = _min(x, axis=axes, keepdims=keepdim)
        elif order == 0:
            value = add_reduce(x != 0, axis=axes, keepdims=keepdim, dtype=np.float64)
        else:
            with np.errstate(over="ignore", under="ignore", divide="ignore"):
                powers = (x**order).astype(dt.np).astype(np.float64)
                total = add_reduce(powers, axis=axes, keepdims=keepdim).astype(dt.np)
                value = total.astype(np.float64) ** (1.0 / order)
        out = wrap(np.asarray(value, dtype=dt.np), dt)
        if not t._data.size or single:
            # torch's kernel fills the result of an empty input with its identity, and writes
            # the result of a norm of single elements from their absolute values (measured: a
            # 0-d input with a dim given has no write): one write through the dispatcher; kept
            # dims (not of the 0 norm): through ``abs_out``, which refuses an operand that
            # requires grad
            if t._data.size and keepdim and order != 0:
                refuse_out_call("abs", t)
            written_by_kernel(out, t)
        return out

    def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
        if order == 0:  # torch's norm_backward: no gradient at all (``.grad`` stays None)
            return (None,)
        x, result = s["self"], s["result"]
        shape, axes = tuple(x._data.shape), axes_of(x, dim)  # the saved ``self``'s sizes
        r = keep_dims(result, shape, axes, keepdim)
        go = keep_dims(g[0], shape, axes, keepdim)
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

    recorded = needs_grad(t)
    saved = (
        {"dim": None if dim is None else saved_dims(dim), "keepdim": keepdim, "ord": ord}
        if recorded
        else None
    )
    return run_op(
        (t,),
        recorded,
        kernel,
        "LinalgVectorNormBackward0",
        backward,
        saved,
        lambda node: node.save("self", t),
        OpNode.save_result,
    )


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``input`` where it is above ``threshold``, else ``value`` (``ThresholdBackward0``); its
    kernel has no bool form."""
    _threshold_args("threshold", input, threshold, value)
    return run_op(
        (input,),
        needs_grad(input),
        lambda: wrap(_thresholded(input._data, threshold, value), input.dtype),
        "ThresholdBackward0",
        _bw_threshold,
        {"threshold": threshold},
        lambda node: node.save("self", input),
    )


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """:func:`threshold` written into ``input`` (``ThresholdBackward1``, which saves the value
    before the write, a clone, as torch's: the gradient flows where the input was above
    ``threshold``)."""
    _threshold_args("threshold_", input, threshold, value)
    return run_inplace(
        input,
        (),
        needs_grad(input),
        lambda: _thresholded(input._data, threshold, value),
        input.dtype,
        "ThresholdBackward1",
        _bw_threshold,
        {"threshold": threshold},
        lambda node: node.save("self", snapshot(input)),
    )


def _threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``F.threshold``: the op ``threshold``, or ``threshold_`` with ``inplace``; named as torch's
    Python function is (its ``__name__``, what its argument errors and function mode show)."""
    op = OPS["threshold_" if inplace else "threshold"]  # by name: ``threshold`` is the number
    return op(input, threshold, value)  # type: ignore[no-any-return]


def _threshold_args(function: str, input: Any, threshold: Any, value: Any) -> None:
    """torch's parser's refusals of ``threshold``'s arguments, in their order."""
    tensor_arg(function, input)
    number_arg(function, threshold, "threshold", 2)
    number_arg(function, value, "value", 3)


def _thresholded(x: NDArray[Any], threshold: float, value: float) -> NDArray[Any]:
    if x.dtype == np.bool_:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    return np.where(x > threshold, x, np.asarray(value, dtype=x.dtype))


def _bw_threshold(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
    """The gradient where the saved ``self`` (the input) is above the threshold, 0 elsewhere."""
    return (g[0] * (s["self"] > s["threshold"]).to(g[0].dtype),)
