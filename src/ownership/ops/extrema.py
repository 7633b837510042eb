"""The elementwise larger or smaller of two operands: ``maximum``, ``minimum``, ``clamp_min``,
``clamp_max`` (and ``clamp_min_``, ``clamp_max_`` in place).

``maximum``/``minimum`` take two tensors (torch's result dtype, NaN propagated) and save both
(``MaximumBackward0``/``MinimumBackward0``); where the two are equal each gets half the gradient,
as in torch. ``clamp_min``/``clamp_max`` take a number bound (``ClampMinBackward0``, saving
``self`` and the number) or a tensor bound (``ClampMinBackward1``, saving both tensors; the
bound then gets the gradient where it won).

>>> import ownership
>>> ownership.maximum(ownership.tensor([1, 5]), ownership.tensor([3, 2]))
tensor([3, 5])
>>> ownership.tensor([-1.0, 2.0]).clamp_min(0)
tensor([0., 2.])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import check_result, run_inplace
from ownership.core.tensor import Tensor
from ownership.ops import checks
from ownership.ops.common import (
    check_broadcast,
    inputs_needed,
    lay_out,
    needs_grad,
    operand,
    result_dtype,
    run_op,
    sum_to,
    wrap,
)
from ownership.ops.comparison import where
from ownership.ops.inplace import snapshot
from ownership.ops.masking import masked_fill_
from ownership.ops.python_numbers import operand_in
from ownership.ops.unary import clamp_dtype, clamp_values, kept_grad, zero_ties


def _share(
    gr: Tensor, tie: NDArray[Any], loses: NDArray[Any], shape: tuple[int, ...], *compared: Tensor
) -> Tensor:
    """torch's formula for one side of maximum/minimum, op for op (so a gradient taken with
    ``create_graph`` shows its ``MaskedFillBackward0``): ``where(self == other, grad / 2,
    grad).masked_fill_(loses, 0)``, summed back to the side's ``shape``. ``compared``: ``self``
    and ``other``, whose comparison lays the mask out."""
    mask = Tensor._wrap(tie, dtypes.bool_)
    lay_out(mask, *compared)
    share = where(mask, gr / 2, gr)
    return sum_to(masked_fill_(share, Tensor._wrap(loses, dtypes.bool_), 0), shape)


def _bw_extremum(larger: bool) -> Callable[[OpNode, Saved, Grads], Grads]:
    """The backward of maximum (``larger``) or minimum: the gradient goes to the winner, half to
    each where the two are equal (torch's ``grad / 2``)."""

    def bw(node: OpNode, s: Saved, g: Grads) -> Grads:
        self, other = s["self"], s["other"]
        x, y = self._data, other._data
        tie = np.asarray(x == y)
        x_loses, y_loses = (x < y, x > y) if larger else (x > y, x < y)
        gr, (self_needed, other_needed) = g[0], node.needed
        d_self = _share(gr, tie, np.asarray(x_loses), x.shape, self, other) if self_needed else None
        d_other = (
            _share(gr, tie, np.asarray(y_loses), y.shape, self, other) if other_needed else None
        )
        return (d_self, d_other)

    return bw


def _extremum(fn: np.ufunc, name: str, node_name: str) -> Callable[[Tensor, Tensor], Tensor]:
    backward = _bw_extremum(fn is np.maximum)

    def op(a: Tensor, b: Tensor) -> Tensor:
        def kernel() -> Tensor:
            dt = result_dtype(a, b)
            check_broadcast(a, b)
            x, y = a._data.astype(dt.np, copy=False), b._data.astype(dt.np, copy=False)
            out = wrap(fn(x, y), dt)
            lay_out(out, a, b, common=dt)
            if dt.is_floating_point:
                zero_ties(out._data, x, y)
            return out

        def save(node: OpNode) -> None:
            inputs_needed(node)
            node.save("other", b)  # torch's order: other, then self
            node.save("self", a)

        return run_op((a, b), needs_grad(a, b), kernel, node_name, backward, save=save)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of two tensors (``{node_name}``, saves both)."
    return op


maximum = _extremum(np.maximum, "maximum", "MaximumBackward0")
minimum = _extremum(np.minimum, "minimum", "MinimumBackward0")


def _bw_clamp_bound(lower: bool) -> Callable[[OpNode, Saved, Grads], Grads]:
    """The backward of clamp_min (``lower``) or clamp_max: ``self`` gets the gradient where it
    is within the bound (ties included), a tensor bound where it is not."""

    def bw(node: OpNode, s: Saved, g: Grads) -> Grads:
        self = s["self"]
        x = self._data
        bound = s["min"] if lower else s["max"]
        tensor_bound = isinstance(bound, Tensor)
        b = bound._data if tensor_bound else bound
        kept, passed = (x >= b, x < b) if lower else (x <= b, x > b)  # both False at a NaN
        gr = g[0]
        d_self = sum_to(kept_grad(gr, kept, self, bound), x.shape) if node.needed[0] else None
        if not tensor_bound:
            return (d_self,)
        d_bound = (
            sum_to(kept_grad(gr, passed, self, bound), bound._data.shape)
            if node.needed[1]
            else None
        )
        return (d_self, d_bound)

    return bw


def _bound_dtype(a: Tensor, bound: Any, lower: bool) -> dtypes.dtype:
    """torch's result dtype of ``clamp_min``/``clamp_max`` and its refusals (those of clamp)."""
    if isinstance(bound, Tensor):
        check_broadcast(a, bound)
    return clamp_dtype(a, bound, None) if lower else clamp_dtype(a, None, bound)


def _clamped(x: Any, bound: Any, lower: bool) -> Any:
    """``x`` clamped from below (``lower``) or above by ``bound``: clamp's values."""
    return clamp_values(x, bound, None) if lower else clamp_values(x, None, bound)


def _clamp_bound(lower: bool) -> Callable[[Tensor, Any], Tensor]:
    key = "min" if lower else "max"
    stem = "ClampMinBackward" if lower else "ClampMaxBackward"
    backward = _bw_clamp_bound(lower)

    def op(a: Tensor, bound: Any) -> Tensor:
        bound = operand(bound)
        tensor_bound = isinstance(bound, Tensor)

        def kernel() -> Tensor:
            dt = _bound_dtype(a, bound, lower)
            x = a._data.astype(dt.np, copy=False)
            out = wrap(_clamped(x, operand_in(bound, dt), lower), dt)
            lay_out(out, a, bound, common=dt)
            return out

        def save(node: OpNode) -> None:
            if tensor_bound:
                node.save(key, bound)
            inputs_needed(node)
            node.save("self", a)

        return run_op(
            (a, bound) if tensor_bound else (a,),
            needs_grad(a, bound),
            kernel,
            stem + ("1" if tensor_bound else "0"),
            backward,
            None if tensor_bound else {key: bound},
            save,
        )

    op.__name__ = op.__qualname__ = f"clamp_{key}"
    op.__doc__ = f"``clamp(self, {key}=bound)`` (``{stem}0`` for a number, ``1`` for a tensor)."
    return op


clamp_min = _clamp_bound(True)
clamp_max = _clamp_bound(False)


def _clamp_bound_(lower: bool) -> Callable[[Tensor, Any], Tensor]:
    key = "min" if lower else "max"
    stem = "ClampMinBackward" if lower else "ClampMaxBackward"
    backward = _bw_clamp_bound(lower)

    def op_(a: Tensor, bound: Any) -> Tensor:
        bound = operand(bound)
        tensor_bound = isinstance(bound, Tensor)

        def check_args() -> None:
            dt = _bound_dtype(a, bound, lower)
            if tensor_bound:
                check_result(a, layout.broadcast_shapes(a._data.shape, bound._data.shape), dt)
            elif not dtypes.can_cast(dt, a.dtype):
                # a number bound: torch names the tensor's dtype as its C++ type
                to = checks.CPP_TYPES[a.dtype.name]
                raise RuntimeError(
                    f"result type {dt.short} can't be cast to the desired output type {to}"
                )

        def save(node: OpNode) -> None:
            inputs_needed(node)
            node.save("self", snapshot(a))
            if tensor_bound:
                node.save(key, bound)

        return run_inplace(
            a,
            (bound,) if tensor_bound else (),
            needs_grad(a, bound),
            lambda: _clamped(a._data, operand_in(bound, a.dtype), lower),
            a.dtype,
            stem + ("1" if tensor_bound else "0"),
            backward,
            None if tensor_bound else {key: bound},
            save,
            check_args=check_args,
        )

    op_.__name__ = op_.__qualname__ = f"clamp_{key}_"
    op_.__doc__ = f"``clamp_{key}`` in place (one version bump)."
    return op_


clamp_min_ = _clamp_bound_(True)
clamp_max_ = _clamp_bound_(False)
