"""``cumsum``: running sums along a dim (``CumsumBackward0``), and ``cumsum_`` in place.

Integer and bool tensors sum in int64 unless ``dtype=`` says otherwise; floating sums accumulate
in float64 and are rounded once into the result dtype, as torch's CPU kernel accumulates in its
``acc_type``. The gradient is the reversed running sum of the incoming gradient. torch shows the
saved ``dim`` as the given int read as unsigned 64-bit (``-1`` is ``2**64 - 1``).

>>> import ownership
>>> ownership.tensor([[1, 2, 3], [4, 5, 6]]).cumsum(1)
tensor([[ 1,  3,  6],
        [ 4,  9, 15]])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import run_inplace
from ownership.core.tensor import Tensor
from ownership.ops import checks
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.common import filled_from, needs_grad, run_op, wrap, written_by_kernel

BOOL_KERNEL = "\"cumsum_out_cpu\" not implemented for 'Bool'"


def refuse_bool_kernel(t: Tensor, dt: dtypes.dtype, message: str = BOOL_KERNEL) -> None:
    """torch's refusal of a bool result by a running sum's or product's kernel, which runs only
    for a tensor with dims and elements (a 0-d one is copied, an empty one left empty)."""
    if dt is dtypes.bool_ and t._data.ndim > 0 and t._data.size > 0:
        raise NotImplementedError(message)


def check_scan_in_place(t: Tensor, dtype: dtypes.dtype | None, message: str = BOOL_KERNEL) -> None:
    """The arguments of ``cumsum_``/``cumprod_``: a ``dtype``, if given, must be ``t``'s; then
    the kernel's refusal of bool (``message``)."""
    if dtype is not None and dtype is not t.dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {checks.CPP_TYPES[t.dtype.name]} and "
            f"output tensor dtype {checks.CPP_TYPES[dtype.name]} should match"
        )
    refuse_bool_kernel(t, t.dtype, message)


def scan_layout(arr: NDArray[Any]) -> NDArray[Any]:
    """A running sum's or product's result in C order, whatever its input's layout (torch's
    kernels write an out resized from empty: ``x.t().cumsum(0).stride()`` is contiguous)."""
    return np.ascontiguousarray(arr)


def _running_sums(arr: NDArray[Any], axis: int, dt: dtypes.dtype) -> NDArray[Any]:
    """The running sums of ``arr`` along ``axis`` in ``dt`` (floating: accumulated in float64).

    torch's kernel starts each running sum at 0 (``acc = 0; acc += x``), so a leading -0.0 is
    summed to +0.0 and no running sum is ever -0.0 (fuzz programs 302823, 318749): numpy's
    starts at the first element, so its -0.0 sums get the 0.0 added."""
    if arr.ndim == 0:
        return arr.astype(dt.np)
    acc = np.float64 if dt.is_floating_point else dt.np
    sums = np.cumsum(arr, axis=axis, dtype=acc)
    if dt.is_floating_point:
        sums += 0.0  # -0.0 + 0.0 is +0.0; every other value is kept
    return scan_layout(sums.astype(dt.np, copy=False))


def _bw_cumsum(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``cumsum_backward``: ``g`` summed from each position to the end of the dim, as
    ``reversed_cumsum`` sums it (``g.flip(dim).cumsum(dim).flip(dim)``: a NaN reaches only the
    positions before it, and the sums round as torch's; fuzz program 374311); ``g`` itself when
    it has at most one element or the dim has size 1."""
    gr, dts = g[0], node.input_dtypes
    if dts is not None and dts[0] is not None:  # torch: ``grad.to(self.scalar_type())`` first
        gr = gr.to(dts[0])
    if gr._data.ndim == 0:
        return (gr,)
    dim = s["dim"]
    axis = layout.wrap_dim(as_given(dim), gr._data.ndim)
    if gr._data.size <= 1 or gr._data.shape[axis] == 1:
        return (gr,)
    return (cumsum(gr.flip(axis), axis).flip(axis),)


def result_dtype(t: Tensor, dtype: dtypes.dtype | None) -> dtypes.dtype:
    """The dtype of a running sum or product: ``dtype``, else floating kept, else int64."""
    if dtype is not None:
        return dtype
    return t.dtype if t.dtype.is_floating_point else dtypes.int64


def check_differentiable(t: Tensor, dt: dtypes.dtype) -> None:
    """torch records no integer result of an input that requires grad: it refuses it."""
    if not dt.is_floating_point and needs_grad(t):
        raise RuntimeError(f"Autograd not support dtype: {dt.short}")


def scan_result(out: Tensor, t: Tensor) -> Tensor:
    """``out``, the fresh result of a scan of ``t`` (``cumsum``, ``cumprod``), with what torch's
    scan kernel writes of a 0-d ``t`` (``result.fill_(self)``) or of an empty one
    (``result.zero_()``): a write the result's version counts."""
    if not t._data.ndim:
        filled_from(out, t)
    elif not t._data.size:
        written_by_kernel(out, t)
    return out


def cumsum(t: Tensor, dim: int, dtype: dtypes.dtype | None = None) -> Tensor:
    """The running sums of ``t`` along ``dim`` (``CumsumBackward0``, saves ``dim``)."""
    dt = result_dtype(t, dtype)

    def kernel() -> Tensor:  # an integer result of a ``t`` that needs grad: ``attach`` refuses it
        axis = layout.wrap_dim(dim, t._data.ndim)
        refuse_bool_kernel(t, dt)
        return scan_result(wrap(_running_sums(t._data, axis, dt), dt), t)

    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        kernel,
        "CumsumBackward0",
        _bw_cumsum,
        {"dim": as_saved(dim)} if recorded else None,
    )


def cumsum_(t: Tensor, dim: int, dtype: dtypes.dtype | None = None) -> Tensor:
    """``cumsum`` written into ``t`` (``dtype``, if given, must be ``t``'s)."""
    axis = layout.wrap_dim(dim, t._data.ndim)

    def check_args() -> None:
        check_scan_in_place(t, dtype)

    return run_inplace(
        t,
        (),
        needs_grad(t),
        lambda: _running_sums(t._data, axis, t.dtype),
        t.dtype,
        "CumsumBackward0",
        _bw_cumsum,
        {"dim": as_saved(dim)},
        check_overlap=False,
        check_args=check_args,
    )
