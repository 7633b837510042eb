"""Losses: nll_loss, cross_entropy (log_softmax + nll_loss, as torch) and mse_loss."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, grad_mode, layout
from ownership.core.autograd.node import Grads, OpNode, Saved, shared_context
from ownership.core.dtypes import dtype as DType
from ownership.core.dtypes import missing
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_saved, int64, is_int, read_in_python, tensor_arg
from ownership.ops.arithmetic import div_scalar, mul_scalar, wrapped_scalar
from ownership.ops.backward_ops import linear_in_grad, mse_loss_backward
from ownership.ops.common import needs_grad, run_op, sum_to, wrap
from ownership.ops.reduction import _add_reduce
from ownership.ops.softmax import log_softmax
from ownership.ops.type_names import tp_name

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}

# the numpy names of nll_loss's forward, read once: numpy's module ``__getattr__``
# keeps CPython from caching a read of ``np.negative``, so each costs a dictionary lookup per call
_negative, _asarray = np.negative, np.asarray


def _reduction(reduction: str) -> int:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log likelihood of ``target`` classes under log-probabilities (``NllLossBackward0``),
    torch's arguments in torch's order (class weights and the legacy ``size_average`` and
    ``reduce``: out of the engine's scope, as for :func:`cross_entropy`)."""
    _unweighted("nll_loss", weight, size_average, reduce)
    red = _reduction(reduction)
    _tensors("nll_loss_nd", input, target)
    ignore_index = ignore_index_arg("nll_loss_nd", ignore_index)
    x = input._data
    batched = x.ndim >= 2
    if batched and target._data.ndim and target._data.shape[0] != x.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
            f"({target._data.shape[0]})."
        )
    targets = _Targets(red)

    def kernel() -> Tensor:  # nll_loss_forward's checks of the target, then the loss
        if x.ndim == 2 and target._data.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if target.dtype is not dtypes.int64:  # torch also takes uint8 ("Byte"): not ownership
            raise RuntimeError(
                f"expected target dtype to be Long or Byte, but got {target.dtype.short}"
            )
        tgt = target._data  # int64 (checked above)
        xx = x if batched else x[None]
        tt = tgt if batched else tgt[None]
        n, c = xx.shape[0], xx.shape[1]
        if tt.shape[0] != n:
            raise ValueError(
                f"Expected input batch_size ({n}) to match target batch_size ({tt.shape[0]})."
            )
        # the common case first: every target a class (a negative one reads as a huge unsigned
        # one) and none ignored, found with one pass when ``ignore_index`` is no class
        every = np.maximum.reduce(tt.view(np.uint64), axis=None, initial=0) < c and (
            not 0 <= ignore_index < c or not np.logical_or.reduce(tt == ignore_index, axis=None)
        )
        valid: NDArray[Any] | None = None  # which targets count, when some do not
        safe = tt
        if not every:
            valid = tt != ignore_index
            safe = np.where(valid, tt, 0)
            if np.any(safe.view(np.uint64) >= c):
                bad = int(safe[(safe < 0) | (safe >= c)][0])
                raise IndexError(f"Target {bad} is out of bounds.")
        return _picked_loss(input, targets, batched, xx, safe, valid)

    return _nll(input, target, ignore_index, targets, kernel)


def _nll(
    input: Tensor,
    target: Tensor,
    ignore_index: int,
    targets: _Targets,
    kernel: Callable[[], Tensor],
) -> Tensor:
    """``nll_loss_forward`` under autograd (``NllLossBackward0``): ``self`` and ``target`` saved
    before ``kernel``'s checks of the target (a saved inference tensor is refused before a target
    out of range); the backward reads what the kernel found (``targets``), and the total weight
    it counted is saved after it."""
    red = targets.red
    recorded = needs_grad(input, target)
    ctx = None
    if recorded:  # the node's context: shared for the default ``ignore_index`` (nothing writes it)
        ctx = (
            _DEFAULT_CONTEXTS[red]
            if ignore_index == -100 and type(ignore_index) is int
            else {"reduction": red, "ignore_index": as_saved(ignore_index), "weight": None}
        )

    def save(node: OpNode) -> None:
        node.save("self", input)
        node.save("target", target)

    def after(node: OpNode, out: Tensor) -> None:
        # torch's kernel counts the weight only for a reduction: with none it saves 0; saved as
        # torch does, a 0-d tensor of the input's dtype
        weight = input._data.dtype.type(targets.weight if red else 0)
        node.save("total_weight", wrapped_scalar(weight))

    return run_op(
        (input,), recorded, kernel, "NllLossBackward0", targets.backward, ctx, save, after
    )


def _picked_loss(
    input: Tensor,
    targets: _Targets,
    batched: bool,
    xx: NDArray[Any],
    safe: NDArray[Any],
    valid: NDArray[Any] | None,
) -> Tensor:
    """What :func:`nll_loss` computes once its arguments are checked, and what its backward reads
    of it (kept in ``targets``): ``xx`` is the input's array with a batch dim, ``safe`` the
    targets (each a class), ``valid`` which of them count (None: all)."""
    red = targets.red
    x = input._data
    n = xx.shape[0]
    extra = xx.shape[2:]
    # each target's index in the flattened rows (``take`` and ``put`` by it cost half of
    # indexing by row and column)
    flat: NDArray[Any] | None = None
    if extra:
        picked = np.take_along_axis(xx, safe[:, None], axis=1)[:, 0]
    else:
        flat = row_starts(n, xx.shape[1]) + safe
        picked = xx.take(flat)
    losses = _negative(picked) if valid is None else np.where(valid, -picked, 0).astype(x.dtype)
    total_weight = float(safe.size if valid is None else valid.sum())
    if red == 0:
        out_arr = losses if batched else losses[0]
    elif red == 2:
        out_arr = _add_reduce(losses, axis=None)
    else:
        out_arr = (
            _add_reduce(losses, axis=None) / total_weight if total_weight else np.array(np.nan)
        )
    targets.found(batched, x, xx.shape, input.dtype, safe, valid, flat, total_weight)
    return wrap(_asarray(out_arr, dtype=x.dtype), input.dtype)


_STARTS: dict[tuple[int, int], NDArray[Any]] = {}


def row_starts(n: int, c: int) -> NDArray[Any]:
    """``np.arange(0, n * c, c)``, the flat index of each of ``n`` rows of ``c`` classes,
    read-only, one array per shape shared by every nll_loss that picks its targets by row (a
    training loop asks one or two shapes; at most 64 are kept)."""
    starts = _STARTS.get((n, c))
    if starts is None:
        starts = np.arange(0, n * c, c)
        starts.flags.writeable = False
        if len(_STARTS) >= 64:
            _STARTS.clear()
        _STARTS[n, c] = starts
    return starts


_DEFAULT_CONTEXTS = {
    red: shared_context({"reduction": red, "ignore_index": as_saved(-100), "weight": None})
    for red in _REDUCTIONS.values()
}
"""nll_loss's node context for the default ``ignore_index``, by reduction: one shared object
(``ignore_index`` shown as torch shows a saved int: :func:`~ownership.ops.argument_values.as_saved`)."""


class _Targets:
    """What nll_loss's backward reads of its forward: the targets that count and the shapes,
    kept in one object whose bound ``backward`` is the node's (no closure cells per call)."""

    __slots__ = (
        "array_dtype",
        "batched",
        "dtype",
        "flat",
        "mask",
        "red",
        "safe",
        "shape",
        "valid",
        "weight",
        "xshape",
    )

    def __init__(self, red: int) -> None:
        self.red = red  # the rest is what the forward finds (``found``)

    def found(
        self,
        batched: bool,
        x: NDArray[Any],
        xshape: tuple[int, ...],
        dtype: DType,
        safe: NDArray[Any],
        valid: NDArray[Any] | None,
        flat: NDArray[Any] | None,
        weight: float,
    ) -> None:
        """Keep what the forward found: ``x`` the input's array, ``xshape`` its shape with a
        batch dim, ``safe`` the targets, ``valid`` which count, ``flat`` their flat indices,
        ``weight`` the total weight (the count of kept targets)."""
        self.batched, self.xshape = batched, xshape
        self.shape, self.array_dtype = x.shape, x.dtype  # the input's
        self.dtype, self.safe, self.valid, self.flat = dtype, safe, valid, flat
        self.mask: NDArray[Any] | None = None  # the target mask, made when first needed
        self.weight = weight

    def onehot(self) -> NDArray[Any]:
        """-1 at each kept target, +0 elsewhere, in the input's shape (made once)."""
        mask = self.mask
        if mask is None:
            made = _target_mask(self.xshape, self.array_dtype, self.safe, self.valid, self.flat)
            mask = self.mask = made.reshape(self.shape)
        return mask

    def backward(self, node: OpNode, s: Saved, g: Grads) -> Any:
        """d nll_loss: -g (scaled for a mean) at each kept target, +0 elsewhere."""
        red, w, dtype = self.red, self.weight, self.dtype
        oh = Tensor._wrap(self.onehot(), dtype)
        with grad_mode.no_grad():
            gr = g[0]
            if red == 0:
                gr = gr.unsqueeze(1) if self.batched else gr
                while gr._data.ndim < len(self.shape):
                    gr = gr.unsqueeze(-1)
            elif red == 1 and w:
                gr = gr / w
            value = oh * gr
            _off_targets_zero(value._data, self.onehot())
        return (linear_in_grad("NllLossBackwardBackward0", g[0], s["self"], value, self.transpose),)

    def transpose(self, gg: Tensor) -> Tensor:
        """The gradient of nll_loss's incoming gradient: nll_loss of ``gg``."""
        picked = gg * Tensor._wrap(self.onehot(), self.dtype)
        red, w = self.red, self.weight
        if red == 0:
            return picked.sum(1) if self.batched else picked.sum()
        return picked.sum() / w if red == 1 and w else picked.sum()


def _target_mask(
    shape: tuple[int, ...],
    dtype: Any,
    safe: NDArray[Any],
    valid: NDArray[Any] | None,
    flat: NDArray[Any] | None,
) -> NDArray[Any]:
    """-1 at each kept target, +0 elsewhere (``flat`` each target's index in the flattened
    rows; None: targets along dim 1 of more dims)."""
    onehot = np.zeros(shape, dtype=dtype)
    if flat is None:
        np.put_along_axis(onehot, safe[:, None], 1, axis=1)
        if valid is not None:
            onehot *= valid[:, None]
        np.negative(onehot, out=onehot, where=onehot != 0)
    elif valid is None:
        onehot.put(flat, -1.0)
    else:
        onehot.put(flat, valid)
        np.negative(onehot, out=onehot, where=onehot != 0)
    return onehot


def _off_targets_zero(grad: NDArray[Any], onehot: NDArray[Any]) -> NDArray[Any]:
    """``grad`` (fresh: nobody else holds it) made +0 off the targets, in place, as torch's
    kernel leaves them: it zero-fills the gradient and writes only the target entries (a
    product ``0 * g`` would be -0.0 for a negative ``g``, nan for an infinite one)."""
    np.copyto(grad, 0, where=onehot == 0)
    return grad


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)`` for class-index targets; a target of the
    input's shape holds class probabilities (torch's cross_entropy_loss_prob_target).

    ``label_smoothing`` mixes in the uniform distribution over the classes, as torch's
    composite does (``_smoothed``: its nodes, ``AddBackward0`` last). Class weights and the
    legacy ``size_average``/``reduce`` arguments are out of the engine's scope."""
    _unweighted("cross_entropy", weight, size_average, reduce)
    _reduction(reduction)  # torch's Python function names a bad reduction first
    _tensors("cross_entropy_loss", input, target)
    if type(ignore_index) is not int or ignore_index != -100:  # the default: an int64 already
        ignore_index = ignore_index_arg("cross_entropy_loss", ignore_index)
    dim = 1 if input._data.ndim >= 2 else 0
    if isinstance(target, Tensor) and target._data.shape == input._data.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{target.dtype.short}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        red = _reduction(reduction)
        logp = log_softmax(input, dim)
        n_classes = input._data.shape[dim]
        if label_smoothing > 0.0:
            _check_smoothing(label_smoothing)
            smoothed = mul_scalar(target, 1 - label_smoothing)
            target = smoothed + (label_smoothing / n_classes)
        if red == 0:
            return -(logp * target).sum(dim)
        total = -(logp * target).sum()
        return total if red == 2 else div_scalar(total, input._data.size // n_classes)
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        return _smoothed(input, target, dim, reduction, ignore_index, label_smoothing)
    return nll_loss(log_softmax(input, dim), target, reduction=reduction, ignore_index=ignore_index)


def _tensors(function: str, input: Any, target: Any) -> None:
    """torch's parser's refusal of a loss's ``input`` or ``target`` that is no tensor."""
    tensor_arg(function, input)
    tensor_arg(function, target, "target", 2)


def _unweighted(function: str, weight: Any, size_average: Any, reduce: Any) -> None:
    """The scope's error for class weights and the legacy reduction arguments of a loss."""
    if weight is not None or size_average is not None or reduce is not None:
        raise missing(
            f"the weight, size_average and reduce arguments of {function}",
            "unweighted losses with reduction='mean', 'sum' or 'none'",
        )


def _check_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {_c10_double(label_smoothing)}"
        )


def _c10_double(value: float) -> str:
    """A double as torch's messages print it (C++ ``<<``: ``1.5``, ``2``)."""
    return f"{value:g}"


def _smoothed(
    input: Tensor, target: Tensor, dim: int, reduction: str, ignore_index: int, smoothing: float
) -> Tensor:
    """torch's ``cross_entropy_loss_label_smoothing`` (class-index targets, no weight), op by op:
    ``(1 - smoothing) * nll_loss + smooth * (smoothing / classes)``, where ``smooth`` is minus
    the sum of the log-probabilities over the classes, zero at an ignored target, reduced as
    the loss is (a mean divides by the count of targets not ignored)."""
    logp = log_softmax(input, dim)
    nll = nll_loss(logp, target, reduction=reduction, ignore_index=ignore_index)
    n_classes = input._data.shape[dim]
    smooth = -logp.sum(dim)
    ignored = target == ignore_index
    smooth.masked_fill_(ignored, 0.0)
    red = _REDUCTIONS[reduction]
    if red == 1:
        smooth = smooth.sum() / (~ignored).sum()
    elif red == 2:
        smooth = smooth.sum()
    # C++'s ``double * Tensor``: ``mul.Scalar`` (``MulBackward1``), not a wrapped number's mul
    return mul_scalar(nll, 1 - smoothing) + mul_scalar(smooth, smoothing / n_classes)


def ignore_index_arg(function: str, ignore_index: Any) -> int:
    """``ignore_index`` as a Python int; torch's refusal of one that is no int64 (a bool, a
    float, an int beyond int64)."""
    if type(ignore_index) is int and -(2**63) <= ignore_index < 2**63:
        return ignore_index
    if not is_int(ignore_index):
        raise TypeError(
            f"{function}(): argument 'ignore_index' (position 5) must be int, not "
            f"{tp_name(ignore_index)}"
        )
    return int64(ignore_index)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean (or summed, or elementwise) squared error (``MseLossBackward0``)."""
    read_in_python(target, "size")  # F.mse_loss's first reads: ``target.size() != input.size()``
    read_in_python(input, "size")
    _tensors("mse_loss", input, target)
    red = _reduction(reduction)
    shape = input._data.shape
    if shape != target._data.shape:
        import warnings

        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=4,  # torch's caller of F.mse_loss: mse_loss, quieted, the function, it
        )
        # torch.broadcast_tensors
        shape = layout.broadcast_shapes(input._data.shape, target._data.shape)
    n = int(np.prod(shape))  # the number of squared errors
    in_needed, target_needed = input.requires_grad, target.requires_grad

    def kernel() -> Tensor:
        dt = dtypes.promote_types(input.dtype, target.dtype)  # the result dtype under promotion
        if not dt.is_floating_point:
            raise NotImplementedError(f"\"mse_cpu\" not implemented for '{dt.short}'")
        diff = input._data.astype(dt.np, copy=False) - target._data.astype(dt.np, copy=False)
        sq = diff * diff
        out_arr = sq if red == 0 else (sq.sum() if red == 2 else sq.mean())
        return wrap(np.asarray(out_arr), dt)

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        x, y = s["self"], s["target"]
        k = n if red == 1 else None
        return (
            sum_to(mse_loss_backward(g[0], x, y, k, red != 0), x.shape) if in_needed else None,
            sum_to(mse_loss_backward(g[0], y, x, k, red != 0), y.shape) if target_needed else None,
        )

    def save(node: OpNode) -> None:
        node.save("self", input)
        node.save("target", target)

    return run_op(
        (input, target),
        needs_grad(input, target),
        kernel,
        "MseLossBackward0",
        bw,
        {"reduction": red},
        save,
    )
