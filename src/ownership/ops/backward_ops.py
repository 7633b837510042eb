"""Backward formulas that are ops of their own, as in torch, so that a gradient computed with
``create_graph=True`` has torch's node (``ThresholdBackwardBackward0``, ``SigmoidBackwardBackward0``,
``TanhBackwardBackward0``, ``NllLossBackwardBackward0``, ``SoftmaxBackwardDataBackward0``,
``MseLossBackwardBackward0`` ...) with edges to the incoming gradient and
to the saved tensor it reads, and so stays differentiable: a mask built in numpy still connects
the result to the tensor it was built from (with a zero derivative, as torch's formulas say).

Without grad mode (a plain backward) each is one numpy expression and records nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.op_registry import quiet
from ownership.core.tensor import Tensor
from ownership.ops.common import lay_out, needs_grad, run_op, sum_to, wrap


def _zeros(t: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros(t._data.shape, t._data.dtype), t.dtype)


# the numpy functions of the step's backward formulas, read once: numpy's module ``__getattr__``
# keeps CPython from caching a read of ``np.exp``, so each costs a dictionary lookup per call
_where, _sum_reduce, _exp, _multiply, _subtract = (
    np.where,
    np.add.reduce,
    np.exp,
    np.multiply,
    np.subtract,
)
_ndarray = np.ndarray

_BITS = {2: np.int16, 4: np.int32, 8: np.int64}
_FEW = 256
"""Up to this many elements :func:`_masked` calls ``np.where`` itself (below it is faster)."""


def _read_only_zero(dtype: Any) -> Any:
    zero = np.zeros((), dtype)
    zero.flags.writeable = False
    return zero


_ZEROS = {np.dtype(t): _read_only_zero(t) for t in (np.float16, np.float32, np.float64)}
"""A 0-d zero of each floating dtype, by dtype. Against an array of that dtype it is the same
operand as a Python ``0`` (which takes the array's dtype), bit for bit, but numpy need not
convert a number at each call: a third of a small comparison's cost. Any other dtype (an
integer, a non-native byte order) finds none and keeps the ``0``."""


def _masked(g: Any, mask: Any, *, where_not: bool = False) -> Any:
    """``g`` where ``mask`` (where not ``mask``, if ``where_not``), else +0: ``np.where(mask, g,
    0)``, bit for bit, in its layout.

    A float is kept or zeroed by AND-ing its bits with all ones or all zeros (+0 is all zero
    bits), about five times faster than ``np.where``; exact for every value, inf and nan
    included (a product with the mask would turn ``inf * 0`` into nan and give -0)."""
    bits = _BITS.get(g.itemsize) if g.dtype.kind == "f" else None
    if bits is None or (g.size <= _FEW and g.flags.c_contiguous and mask.flags.c_contiguous):
        # a few elements in C order: numpy's one ``where`` costs less than the five calls below
        zero = _ZEROS.get(g.dtype)
        if zero is None:
            zero = 0
        return _where(mask, zero, g) if where_not else _where(mask, g, zero)
    # all ones where kept, from the bool's byte b: -b (or b - 1), widened; numpy does this
    # faster than a bool's arithmetic in the wider type
    byte = mask.view(np.int8)
    keep = (np.subtract(byte, 1) if where_not else np.negative(byte)).astype(bits)
    kept = g.view(bits)
    # into ``keep``, laid out like the mask (the saved result): where the gradient's layout
    # differs, torch's kernel iterates the result first and lays the output out like it, where
    # numpy would pick row-major (a 0-d mask is a numpy scalar, which cannot be written into)
    into = keep if type(keep) is np.ndarray and keep.shape == kept.shape else None
    return np.bitwise_and(kept, keep, out=into).view(g.dtype)


def threshold_backward(grad: Tensor, result: Tensor) -> Tensor:
    """relu's backward: +0 where ``result <= 0``, else ``grad`` (``ThresholdBackwardBackward0``;
    a nan result keeps its gradient, as torch's kernel tests ``<=``)."""

    def kernel() -> Tensor:
        r = result._data
        zero = _ZEROS.get(r.dtype)
        mask = r <= (0 if zero is None else zero)
        out = wrap(_masked(grad._data, mask, where_not=True), grad.dtype)
        lay_out(out, result, grad)  # torch's iterator reads the result first, then the gradient
        return out

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        return (threshold_backward(g[0], result), _zeros(g[0]))

    recorded = needs_grad(grad, result)
    return run_op((grad, result), recorded, kernel, "ThresholdBackwardBackward0", bw)


def sigmoid_backward(grad: Tensor, result: Tensor) -> Tensor:
    """``grad * (1 - result) * result`` (``SigmoidBackwardBackward0``)."""

    def kernel() -> Tensor:
        r = result._data
        out = wrap(grad._data * (1 - r) * r, grad.dtype)
        lay_out(out, grad, result)
        return out

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        return (sigmoid_backward(g[0], result), g[0] * grad * (1 - 2 * result))

    recorded = needs_grad(grad, result)
    return run_op((grad, result), recorded, kernel, "SigmoidBackwardBackward0", bw)


def tanh_backward(grad: Tensor, result: Tensor) -> Tensor:
    """``grad * (1 - result²)`` (``TanhBackwardBackward0``)."""

    def kernel() -> Tensor:
        r = result._data
        out = wrap(grad._data * (1 - r * r), grad.dtype)
        lay_out(out, grad, result)
        return out

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        return (tanh_backward(g[0], result), -2 * result * grad * g[0])

    recorded = needs_grad(grad, result)
    return run_op((grad, result), recorded, kernel, "TanhBackwardBackward0", bw)


def linear_in_grad(
    name: str,
    grad: Tensor,
    reads: Tensor,
    value: Tensor,
    transpose: Callable[[Tensor], Tensor],
) -> Tensor:
    """``value``, a map linear in ``grad`` that reads ``reads`` only for constants (a target
    mask), as the node ``name`` with edges to both: ``transpose`` gives ``grad``'s gradient,
    ``reads`` gets zeros (torch's ``NllLossBackwardBackward0``)."""

    def kernel() -> Tensor:
        # a fresh result of no history is its own detach(): no alias of it is made
        plain = value._grad_fn is None and value._base is None and not value._requires_grad
        return value if plain else value._detach()

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        return (transpose(g[0]), _zeros(reads))

    return run_op((grad, reads), needs_grad(grad, reads), kernel, name, bw)


def softmax_backward_data(grad: Tensor, output: Tensor, dim: int) -> Tensor:
    """``output * (grad - (grad * output).sum(dim))`` (``SoftmaxBackwardDataBackward0``)."""

    def kernel() -> Tensor:
        r = output._data  # (a 0-d output is reduced over no axis)
        return wrap(_softmax_grad_values(grad._data, r, dim if r.ndim else None), grad.dtype)

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        gg = g[0]  # torch's softmax_double_backward for the output
        d_out = (
            grad * gg
            - (output * grad).sum(dim, keepdim=True) * gg
            - grad * (output * gg).sum(dim, keepdim=True)
        )
        return (softmax_backward_data(gg, output, dim), d_out)

    recorded = needs_grad(grad, output)
    return run_op((grad, output), recorded, kernel, "SoftmaxBackwardDataBackward0", bw)


def log_softmax_backward_data(grad: Tensor, output: Tensor, dim: int) -> Tensor:
    """``grad - exp(output) * grad.sum(dim)`` (``LogSoftmaxBackwardDataBackward0``)."""

    def kernel() -> Tensor:
        r = output._data  # (a 0-d output is reduced over no axis)
        return wrap(_log_softmax_grad_values(grad._data, r, dim if r.ndim else None), grad.dtype)

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        gg = g[0]  # torch's formulas (log_softmax_double_backward for the output)
        z = output.exp()
        weighted = (gg * z).sum(dim, keepdim=True)
        d_out = z * grad.sum(dim, keepdim=True) * (weighted - gg)
        return (gg - weighted, d_out)

    recorded = needs_grad(grad, output)
    return run_op((grad, output), recorded, kernel, "LogSoftmaxBackwardDataBackward0", bw)


@quiet
def _softmax_grad_values(go: Any, r: Any, axis: int | None) -> Any:
    """``r * (go - (go * r).sum(axis))`` in numpy, quiet (an inf or nan gradient computes
    silently, as in torch)."""
    return r * (go - (go * r).sum(axis=axis, keepdims=True))


@quiet
def _log_softmax_grad_values(go: Any, result: Any, axis: int | None) -> Any:
    """``go - exp(result) * go.sum(axis)`` in numpy, quiet (an inf or nan gradient computes
    silently, as in torch)."""
    total = _sum_reduce(go, axis=axis, keepdims=True)  # ndarray.sum's reduce
    scaled = _exp(result)
    if (
        type(scaled) is _ndarray  # a 0-d result's exp is a numpy scalar: nothing to write into
        and scaled.dtype is go.dtype  # (a dtype equal but not the same object: the general line)
        and scaled.shape == go.shape
        and go.flags.c_contiguous
    ):
        # into the fresh C-ordered array (the layout and dtype ``go - scaled`` would have): the
        # same values, two arrays fewer
        _multiply(scaled, total, out=scaled)
        return _subtract(go, scaled, out=scaled)
    return go - scaled * total


def mse_loss_backward(
    grad: Tensor, input: Tensor, target: Tensor, mean_of: int | None, reduced: bool
) -> Tensor:
    """``2 * (input - target) * grad``, divided by ``mean_of`` for a mean
    (``MseLossBackwardBackward0``); ``reduced``: ``grad`` is that of one reduced value."""

    def kernel() -> Tensor:
        scale = 2.0 if mean_of is None else 2.0 / mean_of
        return wrap(grad._data * (input._data - target._data) * scale, grad.dtype)

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        gg = g[0]  # torch's mse_loss_double_backward(_grad_output)
        if reduced:
            ones = Tensor._wrap(np.ones(grad._data.shape, grad._data.dtype), grad.dtype)
            d_grad = (mse_loss_backward(ones, input, target, mean_of, True) * gg).sum()
        else:
            d_grad = mse_loss_backward(gg, input, target, mean_of, False)
        d_in = 2 * (gg * grad)
        if mean_of is not None:
            d_in = d_in.div_(mean_of)
        return (
            d_grad,
            sum_to(d_in, tuple(input._data.shape)),
            sum_to(-d_in, tuple(target._data.shape)),
        )

    inputs = (grad, input, target)
    return run_op(inputs, needs_grad(*inputs), kernel, "MseLossBackwardBackward0", bw)
