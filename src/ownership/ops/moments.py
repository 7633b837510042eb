"""The moments of a tensor: ``var``, ``std``, and ``var_mean``/``std_mean`` (one node with two
outputs), over all elements or over ``dim``.

Sums in float64, the result rounded once into the tensor's dtype (the standard deviation is the
root of the float64 variance). Each node shows ``dim`` and ``correction`` as torch's does
(:func:`_correction`), saves ``self`` (and the standard deviation it returned, for ``std``), and
computes its gradient step for step as torch's ``var_backward``/``std_backward``, with tensor
ops, so that it is differentiable again.

>>> import ownership
>>> x = ownership.tensor([3.0, 4.0], requires_grad=True)
>>> x.var(), x.std(unbiased=False), ownership.std_mean(x)[1].grad_fn.name()
(tensor(0.5000, grad_fn=<VarBackward0>), tensor(0.5000, grad_fn=<StdBackward0>), 'StdMeanBackward0')
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ownership.core import layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.ops.common import needs_grad, refuse_out_call, run_op, wrap, written_by_kernel
from ownership.ops.reduction import saved_dims
from ownership.ops.statistics import add_reduce, axes_of, count_over, keep_dims

__all__ = ["std", "std_mean", "var", "var_mean"]


def _correction(unbiased: Any, correction: Any) -> tuple[Any, float]:
    """The correction as torch's node shows it, and as computed: the overloads that take
    ``unbiased`` (given as True or False) correct by 1 or 0; the other shows ``correction`` as
    given (None, the default: 1)."""
    shown = correction if unbiased is None else int(bool(unbiased))
    return shown, 1.0 if shown is None else float(shown)


def _moments(
    t: Tensor, dim: Any, correction: float, keepdim: bool, name: str
) -> tuple[Any, Any, tuple[int, ...] | None]:
    """Variance (in float64) and mean (rounded into ``t``'s dtype) over ``dim``, and the axes
    reduced (:func:`~ownership.ops.statistics.axes_of`), in torch's order: the dtype refused
    first, then the dims; torch's warning, named ``name``, when there is no degree of freedom."""
    if not t.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    axes = axes_of(t, dim)
    x = t._data.astype(np.float64)
    n = count_over(t, axes)
    # torch's reduction factor: the input's numel over the output's, 0 for an empty output
    if (n if t._data.size else 0) - correction <= 0:
        warn_at_user(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel)."
        )
    mean = add_reduce(x, axis=axes, keepdims=True) / n
    var = add_reduce((x - mean) ** 2, axis=axes, keepdims=keepdim) / max(n - correction, 0)
    if not keepdim:
        mean = mean.reshape(np.shape(var))
    return var, np.asarray(mean, dtype=t.dtype.np), axes


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


def _std_grad(
    g: Tensor, x: Tensor, std: Tensor, dims: tuple[int, ...] | None, keepdim: bool, c: float
) -> Tensor:
    """torch's ``std_backward``: ``g / (2 std)``, 0 where the standard deviation is 0, through
    ``var_backward``."""
    return _var_grad((g / (std * 2)).masked_fill_(std == 0, 0), x, dims, keepdim, c)


def _moment(
    name: str, t: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any
) -> tuple[Tensor, Tensor | None]:
    """``var``, ``std``, ``var_mean`` or ``std_mean`` (``name``) of ``t``: the spread, and the
    mean for the two that return it; one node (two outputs with the mean)."""
    shown, c = _correction(unbiased, correction)
    root = name.startswith("std")
    means: list[Tensor] = []  # the mean, which the kernel of ``var_mean``/``std_mean`` makes

    def kernel() -> Tensor:
        v, m, axes = _moments(t, dim, c, keepdim, name)  # its warning comes first
        kept = [n for d, n in enumerate(t._data.shape) if axes is not None and d not in axes]
        if name in ("var", "std") and t._data.size and layout.numel(kept) <= 1:
            refuse_out_call("sum", t)  # torch's kernel of one result takes the mean first
        spread_values = np.asarray(np.sqrt(v) if root else v, dtype=t.dtype.np)
        spread = wrap(layout.as_row_major(spread_values), t.dtype)
        # torch's kernel fills an empty input's results with NaN, and the one result of a
        # spread of any input with its number (``std_var_all_cpu``): one write each through
        # the dispatcher
        if name.endswith("_mean"):
            mean = wrap(layout.as_row_major(np.asarray(m)), t.dtype)
            means.append(mean)
            if not t._data.size:
                written_by_kernel(spread, t)
                written_by_kernel(mean, t)
        elif not t._data.size or layout.numel(kept) <= 1:
            written_by_kernel(spread, t)
        return spread

    saved_name = "result0" if name.endswith("_mean") else "result"

    def backward(node: OpNode, s: Saved, g: Grads) -> tuple[Any]:
        x = s["self"]  # torch's formulas read the sizes of the saved ``self``
        dims, total = _given_dims(x, dim), None
        if g[0] is not None:
            if root:
                std = s["result0"] if means else s["result"]
                total = _std_grad(g[0], x, std, dims, keepdim, c)
            else:
                total = _var_grad(g[0], x, dims, keepdim, c)
        if means and g[1] is not None:
            shape, axes = tuple(x._data.shape), axes_of(x, dim)
            part = keep_dims(g[1], shape, axes, keepdim).expand(shape) / count_over(x, axes)
            total = part if total is None else total + part
        return (total,)

    def after(node: OpNode, spread: Tensor) -> None:
        if means:  # the mean is the node's output 1
            node.num_outputs = 2
            mean = means[0]
            mean._grad_fn = node
            mean._requires_grad = True
            mean._output_nr = 1
        if root:
            node.save(saved_name, spread, is_output=True)

    recorded = needs_grad(t)
    saved = (
        {"correction": shown, "dim": None if dim is None else saved_dims(dim), "keepdim": keepdim}
        if recorded
        else None
    )
    spread = run_op(
        (t,),
        recorded,
        kernel,
        "".join(part.capitalize() for part in name.split("_")) + "Backward0",
        backward,
        saved,
        lambda node: node.save("self", t),
        after,
    )
    return spread, means[0] if means else None


def var(
    t: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The variance over ``dim`` (all elements by default), corrected by 1 unless told otherwise
    (``VarBackward0``)."""
    return _moment("var", t, dim, unbiased, keepdim, correction)[0]


def std(
    t: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The standard deviation: the root of :func:`var` (``StdBackward0``, saves its result)."""
    return _moment("std", t, dim, unbiased, keepdim, correction)[0]


def var_mean(
    t: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple[Tensor, Tensor]:
    """``(var, mean)``, both outputs of one ``VarMeanBackward0`` node."""
    spread, mean = _moment("var_mean", t, dim, unbiased, keepdim, correction)
    assert mean is not None
    return spread, mean


def std_mean(
    t: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple[Tensor, Tensor]:
    """``(std, mean)``, both outputs of one ``StdMeanBackward0`` node (saves ``result0``)."""
    spread, mean = _moment("std_mean", t, dim, unbiased, keepdim, correction)
    assert mean is not None
    return spread, mean
