"""``amax``, ``amin`` and ``logsumexp``: the largest or smallest value, or the smooth maximum
``log(sum(exp(x)))``, over a list of dims.

``amax``/``amin`` reduce over every dim given (all of them when none is), keep ``self``'s dtype
and return values only; a zero result has the sign of the first zero in torch's loop, which walks
the reduced dims in memory order (:func:`first_zero_signs`); their gradient is shared evenly by the elements equal to the result
(torch's ``scale_grad_by_count``), where ``max(dim)`` gives all of it to one. ``logsumexp``
computes as torch does: the max over the dims (an infinite one taken as 0) is subtracted before
``exp`` and added back after ``log``, so large values do not overflow; an integer or bool tensor
is first converted to the default dtype. Both nodes save ``dim``, ``keepdim``, ``self`` and the
``result``; the gradients are torch's formulas in the engine's ops, so they are differentiable.

>>> import ownership
>>> x = ownership.tensor([[1.0, 3.0, 3.0], [1000.0, 1000.0, 0.0]])
>>> x.amax(1)
tensor([   3., 1000.])
>>> x.logsumexp(1)
tensor([   3.7586, 1000.6932])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.tensor import Tensor
from ownership.ops import checks
from ownership.ops.argument_values import as_given
from ownership.ops.common import (
    needs_grad,
    refuse_out_call,
    run_op,
    sum_to,
    wrap,
    written_by_kernel,
)
from ownership.ops.op_table import ops
from ownership.ops.reduction import dims_of, saved_dims

# the ufuncs' reduces, called without ``np.max``'s dispatch (and typed loosely: numpy's overloads
# do not cover a tuple of axes with ``keepdims`` given as a variable)
_max: Callable[..., Any] = np.maximum.reduce
_min: Callable[..., Any] = np.minimum.reduce
_add: Callable[..., Any] = np.add.reduce


def _axes(t: Tensor, dim: Any) -> tuple[int, ...]:
    """The dims reduced over, wrapped and in order: every dim when none is given."""
    found = dims_of(t, () if dim is None else dim)
    return found if found is not None else ()


def _restored(x: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """torch's ``restore_reduced_dims``: a reduced tensor with the reduced ``dims`` (as the node
    saved them) back, of size 1, each wrapped against the restored number of dims (``x``'s and
    theirs, not ``self``'s: a ``.data`` assigned since does not change it); ``x`` itself when
    ``keepdim`` kept them or no dim was given."""
    if keepdim or not dims:
        return x
    total = x._data.ndim + len(dims)
    for d in sorted(layout.wrap_dim(as_given(d), total) for d in dims):
        x = ops.unsqueeze(x, d)  # in increasing order: each lands where the reshape puts its 1
    return x


def first_zero_signs(arr: NDArray[Any], axes: tuple[int, ...], vals: NDArray[Any]) -> NDArray[Any]:
    """``vals`` (the max or min of ``arr`` over ``axes``, dims kept as ``vals`` keeps them) with
    each zero signed as torch's loop leaves it: its accumulator takes an element only when that
    element is strictly larger (smaller), so of equal zeros the first one the loop meets wins, and
    TensorIterator walks the reduced dims in memory order (the smallest stride innermost; a tie
    goes to the smaller size). Over 4 vectors of a contiguous run the kernel is vectorised, and
    the lanes' order depends on the CPU's vector width: there the first zero is taken as well.

    >>> x = np.array([[-1.0, -0.0], [0.0, -2.0]]).T  # memory order: -1, -0, 0, -2
    >>> float(first_zero_signs(x, (0, 1), np.float64(0.0)))
    -0.0
    """
    zero = vals == 0
    if arr.dtype.kind != "f" or not np.any(zero):
        return vals
    stride = {d: abs(arr.strides[d]) for d in axes}
    inner = sorted(axes, key=lambda d: (stride[d], arr.shape[d]))
    kept = [d for d in range(arr.ndim) if d not in axes]
    walk = arr.transpose(kept + inner[::-1]).reshape([arr.shape[d] for d in kept] + [-1])
    first = np.argmax(walk == 0, axis=-1)[..., None]
    signs = np.signbit(np.take_along_axis(walk, first, axis=-1)[..., 0]).reshape(np.shape(vals))
    return np.where(zero, np.where(signs, -0.0, 0.0).astype(arr.dtype), vals)


def _bw_extreme(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``scale_grad_by_count``: the gradient divided among the elements equal to the
    result, ``(grad / mask.sum(dim, True)) * mask``. A 0-d ``self``'s comes out with the dims
    restored (size 1), and is summed back to 0-d as torch's ``validate_outputs`` sums it."""
    dims, keepdim = s["dim"], s["keepdim"]
    grad = _restored(g[0], dims, keepdim)
    mask = ops.eq(_restored(s["result"], dims, keepdim), s["self"])
    count = ops.sum(mask, tuple(as_given(d) for d in dims), True)
    out = ops.mul(ops.div(grad, count), mask)
    return (sum_to(out, ()) if node.input_shapes == ((),) and out._data.ndim else out,)


def _extreme(t: Tensor, dim: Any, keepdim: bool, which: str) -> Tensor:
    """``amax`` or ``amin`` of ``t`` over ``dim`` (``AmaxBackward0``/``AminBackward0``)."""

    def kernel() -> Tensor:
        axes = _axes(t, dim)
        arr = t._data
        if arr.size == 0:
            if dim is None or (isinstance(dim, tuple | list) and not dim):
                raise RuntimeError(
                    f"{which}(): Expected reduction dim to be specified for input.numel() == 0. "
                    "Specify the reduction dim with the 'dim' argument."
                )
            for d in (dim,) if isinstance(dim, int) else dim:  # as given: torch's message names it
                checks.reduce_dim(which, t, int(d))
        reduce = _max if which == "amax" else _min
        vals: NDArray[Any] = reduce(arr, axis=axes if arr.ndim else None, keepdims=keepdim)
        if arr.size:
            vals = first_zero_signs(arr, axes if arr.ndim else (), vals)
        out = wrap(np.array(vals, order="C"), t.dtype)
        if arr.size and (which == "amax" or t.dtype is not dtypes.int64):
            # the reduction's fill_ of its identity (torch's int64 ``min_values`` kernel is
            # ``binary_kernel_reduce``, which starts from its identity without one)
            written_by_kernel(out, t)
        return out

    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        kernel,
        f"{which.capitalize()}Backward0",
        _bw_extreme,
        {"dim": saved_dims(() if dim is None else dim), "keepdim": keepdim} if recorded else None,
        lambda node: _save_self(node, t),
        OpNode.save_result,
    )


def _save_self(node: OpNode, t: Tensor) -> None:
    """What an ``amax``/``amin`` node keeps: ``self``, and its shape, the one its gradient is
    summed back to when ``self`` is 0-d (the engine's record of it)."""
    node.save("self", t)
    node.input_shapes = (tuple(t._data.shape),)


def amax(t: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The largest value over ``dim`` (all dims when none is given); NaN wins."""
    return _extreme(t, dim, keepdim, "amax")


def amin(t: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The smallest value over ``dim`` (all dims when none is given); NaN wins."""
    return _extreme(t, dim, keepdim, "amin")


def _bw_logsumexp(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``logsumexp_backward``: ``grad * exp(self - result)``, the reduced dims restored
    (``unsqueeze_multiple`` against ``self``'s dims) unless ``keepdim`` or ``self`` is 0-d."""
    self, keepdim, grad, result = s["self"], s["keepdim"], g[0], s["result"]
    ndim = self._data.ndim
    if not keepdim and ndim:
        for d in sorted(layout.wrap_dim(as_given(d), ndim) for d in s["dim"]):
            grad, result = ops.unsqueeze(grad, d), ops.unsqueeze(result, d)
    return (ops.mul(grad, ops.exp(ops.sub(self, result))),)


def logsumexp(t: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(t), dim))`` computed without overflow (``LogsumexpBackward0``)."""
    refuse_out_call("logsumexp", t)  # torch's kernel writes through logsumexp_out
    given = t
    if not t.dtype.is_floating_point:
        t = ops.to(t, dtypes.get_default_dtype())

    def kernel() -> Tensor:
        axes = _axes(t, dim)
        arr = t._data
        every = axes if arr.ndim else None
        if arr.size == 0:
            vals = np.log(_add(np.exp(arr), axis=every, keepdims=keepdim))
        else:
            if isinstance(dim, tuple | list) and not dim and not keepdim and arr.ndim:
                # torch adds the max kept as [1, ...] into the result reduced to []
                raise RuntimeError(
                    f"output with shape [] doesn't match the broadcast shape {[1] * arr.ndim}"
                )
            maxes = _max(arr, axis=every, keepdims=True)
            maxes = np.where(np.abs(maxes) == np.inf, 0, maxes).astype(arr.dtype)
            total = _add(np.exp(arr - maxes), axis=every, keepdims=keepdim)
            back = maxes if keepdim else maxes.reshape(np.shape(total))
            vals = np.log(total) + back
        return written_by_kernel(wrap(np.array(vals, dtype=arr.dtype, order="C"), t.dtype), given)

    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        kernel,
        "LogsumexpBackward0",
        _bw_logsumexp,
        {"dim": saved_dims(dim), "keepdim": keepdim} if recorded else None,
        lambda node: node.save("self", t),
        OpNode.save_result,
    )
