"""Elementwise math functions of one tensor and their backward, each saving what torch's saves.

``sigmoid``/``exp``/``tanh``/``relu``/``sqrt`` save their result, ``log``/``abs``/``clamp``/``sin``/
``cos`` save their input, ``neg`` saves nothing. Integer inputs of the float functions give the
default float dtype.

>>> import ownership
>>> x = ownership.tensor([0.0, 1.0], requires_grad=True)
>>> y = x.sin()
>>> y.grad_fn.name(), y.grad_fn._saved_self is x
('SinBackward0', True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved, shared_context
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.ops.backward_ops import sigmoid_backward, tanh_backward, threshold_backward
from ownership.ops.common import (
    inputs_needed,
    lay_out,
    lay_out_as,
    needs_grad,
    raw,
    refuse_out_call,
    result_type,
    run_op,
    scalar_dtype,
    sum_to,
    wrap,
    written_by_kernel,
    zeros_like_grad,
)
from ownership.ops.comparison import where
from ownership.ops.iteration_order import elementwise_strides
from ownership.ops.loop_order import vector_elements
from ownership.ops.python_numbers import int_parameter, refuse_uint64


# ---------------------------------------------------------------- backward formulas
def _bw_zero(node: OpNode, s: Saved, g: Grads) -> Grads:
    """A zero gradient (``sign``'s)."""
    return (zeros_like_grad(g[0]),)


def bw_neg(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(-self) = -d self."""
    return (-g[0],)


def bw_exp(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d exp(self) = result * d self."""
    return (g[0] * s["result"],)


def bw_log(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d log(self) = d self / self."""
    return (g[0] / s["self"],)


def bw_sqrt(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d sqrt(self) = d self / (2 * result)."""
    return (g[0] / (s["result"] * 2),)


def bw_abs(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d abs(self) = sgn(self) * d self."""
    return (g[0] * sign(s["self"], "SgnBackward0"),)  # torch's abs backward: grad * self.sgn()


def bw_sigmoid(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d sigmoid(self) = result * (1 - result) * d self."""
    return (sigmoid_backward(g[0], s["result"]),)


def bw_tanh(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d tanh(self) = (1 - result**2) * d self."""
    return (tanh_backward(g[0], s["result"]),)


def bw_relu(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d relu(self) = 0 where result <= 0, else d self (a NaN result keeps it)."""
    return (threshold_backward(g[0], s["result"]),)


def kept_grad(g: Tensor, kept: Any, *compared: Any) -> Tensor:
    """torch's ``where(kept, grad, 0)`` in the backward of the clamp family: the gradient where
    ``kept`` (a bool array) is True, zero elsewhere (never ``grad * mask``: an inf gradient
    gives 0, not NaN, where it is not kept); differentiated again, a ``WhereBackward0``.
    ``compared``: the operands of the first comparison that made ``kept`` (``self >= min``:
    tensors or numbers), whose layout the mask has in torch, and so the result."""
    zero = Tensor._wrap(np.zeros((), dtype=g._data.dtype), g.dtype)
    mask = Tensor._wrap(np.asarray(kept, dtype=bool), dtypes.bool_)
    lay_out(mask, *compared)
    return where(mask, g, zero)


def bw_clamp(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d clamp(self, min, max) = d self where min <= self <= max, else 0."""
    self = s["self"]
    x = self._data
    lo, hi = s["min"], s["max"]
    if lo is None and hi is None:
        return (g[0],)
    if lo is not None and hi is not None:
        kept = (x >= raw(lo)) & (x <= raw(hi))
    else:
        kept = x >= raw(lo) if lo is not None else x <= raw(hi)
    return (kept_grad(g[0], kept, self, lo if lo is not None else hi),)


def bw_sin(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d sin(self) = cos(self) * d self."""
    return (g[0] * s["self"].cos(),)


def bw_cos(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d cos(self) = -sin(self) * d self."""
    return (g[0] * -s["self"].sin(),)


def bw_clamp_tensors(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``ClampBackward0`` (tensor bounds): ``self`` gets the gradient where it is within
    the bounds; ``min`` where ``self`` is below it (and it is below ``max``); ``max`` where
    ``self`` is above it or it is below ``min``. Each summed back to its input's shape."""
    self = s["self"]
    x = self._data
    lo, hi = s["min"], s["max"]
    lo_a = None if lo is None else lo._data
    hi_a = None if hi is None else hi._data
    gr = g[0]
    out: list[Tensor | None] = [None, None, None]
    if node.needed[0]:
        kept = np.ones(x.shape, dtype=bool)
        if lo_a is not None:
            kept = kept & (x >= lo_a)
        if hi_a is not None:
            kept = kept & (x <= hi_a)
        out[0] = sum_to(kept_grad(gr, kept, self, lo if lo is not None else hi), x.shape)
    if lo is not None and node.needed[1]:
        below = x < lo_a if hi_a is None else (x < lo_a) & (lo_a < hi_a)
        out[1] = sum_to(kept_grad(gr, below, self, lo), lo._data.shape)
    if hi is not None and node.needed[2]:
        above = x > hi_a if lo_a is None else (x > hi_a) | (hi_a < lo_a)
        out[2] = sum_to(kept_grad(gr, above, self, hi), hi._data.shape)
    return tuple(out)


def tensor_bounds(lo: Any, hi: Any) -> bool:
    """Whether clamp's bounds chose torch's Tensor overload: a tensor bound and no number one (a
    number with a 0-d tensor is the Number overload, which reads the tensor as a number)."""
    given = [v for v in (lo, hi) if v is not None]
    return bool(given) and all(isinstance(v, Tensor) for v in given)


def number_bounds(lo: Any, hi: Any) -> dict[str, Any]:
    """The bounds ``ClampBackward1`` saves: numbers (a 0-d tensor bound read as its number, as
    torch's Number overload reads it)."""
    return {
        "min": lo.item() if isinstance(lo, Tensor) else lo,
        "max": hi.item() if isinstance(hi, Tensor) else hi,
    }


# ---------------------------------------------------------------- the ops
NO_CONTEXT = shared_context({})
"""The context of a node of :func:`_unary`: empty (it saves a tensor, never None), shared."""


def floating(a: Tensor) -> tuple[Any, dtypes.dtype]:
    """The operand of torch's float functions (``exp``, ``sigmoid``, ``log1p``...) and their dtype:
    a floating tensor's values as they are, an integer or bool tensor's in the default float dtype
    (which its in-place form then cannot cast back: "result type Float can't be cast ..."), cast
    first as torch's TensorIterator casts it, with ``to``: laid out as ``preserve_format`` lays
    it out (:func:`~ownership.core.layout.preserved`)."""
    if a.dtype.is_floating_point:
        return a._data, a.dtype
    dt = dtypes.get_default_dtype()
    arr = layout.preserved(a._data, a._stride(), dt.np)
    arr[...] = a._data
    return arr, dt


def _unary(a: Tensor, fn: Any, name: str, backward: Any, save: str) -> Tensor:
    """``fn`` of a floating tensor, or of an integer one as the default float dtype (laid out
    as its cast is: ``floating``)."""
    recorded = needs_grad(a)
    if save == "result":
        after = OpNode.save_result
        return run_op(
            (a,), recorded, _unary_kernel, name, backward, NO_CONTEXT, after=after, args=(a, fn)
        )
    return run_op(
        (a,), recorded, _unary_kernel, name, backward, NO_CONTEXT, _save_self, args=(a, fn)
    )


def _unary_kernel(a: Tensor, fn: Any) -> Tensor:
    """The kernel of :func:`_unary`."""
    arr, dt = floating(a)
    out = wrap(fn(arr), dt)
    if arr is a._data:
        lay_out(out, a)
    else:
        cast = tuple(s // arr.itemsize for s in arr.strides)
        lay_out_as(out, elementwise_strides(arr.shape, ((arr.shape, cast),)))
    return out


def _save_self(node: OpNode, a: Tensor, fn: Any) -> None:
    """What a node of :func:`_unary` that saves its input keeps: ``self``."""
    node.save("self", a)


def _sigmoid_np(x: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-x))


def exp(a: Tensor) -> Tensor:
    """Elementwise e**a (``ExpBackward0``, saves result)."""
    return _unary(a, np.exp, "ExpBackward0", bw_exp, "result")


def log(a: Tensor) -> Tensor:
    """Natural log (``LogBackward0``, saves self)."""
    return _unary(a, np.log, "LogBackward0", bw_log, "self")


def sqrt(a: Tensor) -> Tensor:
    """Square root (``SqrtBackward0``, saves result)."""
    return _unary(a, np.sqrt, "SqrtBackward0", bw_sqrt, "result")


def sigmoid(a: Tensor) -> Tensor:
    """Logistic function (``SigmoidBackward0``, saves result)."""
    return _unary(a, _sigmoid_np, "SigmoidBackward0", bw_sigmoid, "result")


def tanh(a: Tensor) -> Tensor:
    """tanh (``TanhBackward0``, saves result)."""
    return _unary(a, np.tanh, "TanhBackward0", bw_tanh, "result")


def sin(a: Tensor) -> Tensor:
    """Elementwise sine (``SinBackward0``, saves self)."""
    return _unary(a, np.sin, "SinBackward0", bw_sin, "self")


def cos(a: Tensor) -> Tensor:
    """Elementwise cosine (``CosBackward0``, saves self)."""
    return _unary(a, np.cos, "CosBackward0", bw_cos, "self")


def relu_values(x: Any) -> Any:
    """torch's relu of an array: its ``clamp_min(x, 0)`` (:func:`clamp_values`: a NaN kept, and
    ``-0.0`` too)."""
    return clamp_values(x, 0, None)


# bound once: numpy's module ``__getattr__`` makes each ``np.`` read slow
_maximum, _minimum, _copyto = np.maximum, np.minimum, np.copyto


def clamp_values(x: Any, lo: Any, hi: Any) -> Any:
    """torch's clamp of the array ``x`` by ``lo`` and ``hi`` (numbers or arrays of its dtype, or
    None): an element beyond a bound becomes the bound, NaN stays NaN. torch's kernels compare
    with ``<`` and ``>``, so an element equal to a number bound is kept: ``relu(-0.0)`` is
    ``-0.0`` and ``1 / relu(-0.0)`` is ``-inf`` (numpy's ``maximum`` may answer either zero; with
    a tensor bound torch's own answer for two zeros depends on its vectorised loop).

    >>> import numpy as np
    >>> kept = clamp_values(np.array([-0.0, 0.0, -2.0, np.nan]), 0, None)
    >>> kept, np.signbit(kept)
    (array([-0.,  0.,  0., nan]), array([ True, False, False, False]))
    """
    out = x
    arrays = [v for v in (lo, hi) if isinstance(v, np.ndarray)]
    vector = None
    if lo is not None:
        out = _kept_at(_maximum(out, lo), out, lo)
        if isinstance(lo, np.ndarray) and x.dtype.kind == "f":
            out = np.asarray(out)  # (a 0-d result is a numpy scalar)
            vector = zero_ties(out, x, lo, [x, *arrays])
    if hi is not None:
        before = out
        out = _kept_at(_minimum(out, hi), out, hi)
        if isinstance(hi, np.ndarray) and x.dtype.kind == "f":
            out = np.asarray(out)
            zero_ties(out, before, hi, [x, *arrays], vector)
    return out


def zero_ties(
    out: Any,
    first: Any,
    second: Any,
    inputs: Any = None,
    vector: NDArray[np.bool_] | None = None,
) -> NDArray[np.bool_] | None:
    """The sign of a zero where torch's elementwise maximum or minimum (``maximum``, ``minimum``,
    ``clamp`` by a tensor) meets ``0.0`` and ``-0.0``: its vector loop (``_mm256_max_ps(first,
    second)`` and the like) answers the second operand, its scalar loop (``std::max(first,
    second)``) the first. ``out`` (the floating array of the answers, of the broadcast shape) is
    corrected in place; which elements are vectorised is :func:`vector_elements` of ``inputs``
    (default: the two operands), or ``vector`` when given. Returns that mask (None when there
    was no such tie and it was not given)."""
    shape = np.shape(out)
    a, b = np.broadcast_to(first, shape), np.broadcast_to(second, shape)
    ties = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
    if not ties.any():
        return vector
    if vector is None:
        vector = vector_elements(shape, [first, second] if inputs is None else inputs)
    np.copyto(out, b, where=ties & vector)
    np.copyto(out, a, where=ties & ~vector)
    return vector


def _kept_at(clamped: Any, x: Any, bound: Any) -> Any:
    """``clamped`` with the elements of ``x`` equal to the number ``bound`` put back: only a zero
    bound can change one (two equal floats differ only as zeros of two signs)."""
    if isinstance(bound, np.ndarray) or bound != 0 or x.dtype.kind != "f":
        return clamped
    clamped = np.asarray(clamped)  # a 0-d result is a numpy scalar
    _copyto(clamped, x, where=x == bound)
    return clamped


def refuse_bool_relu(a: Tensor) -> None:
    """torch's ``relu`` and ``relu_`` refuse a bool tensor before any kernel (even an empty one,
    even one whose elements overlap)."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")


def relu(a: Tensor, inplace: bool = False) -> Tensor:
    """``0 if a < 0 else a`` (``ReluBackward0``, saves result); keeps integer dtypes, refuses
    bool (:func:`refuse_bool_relu`). With ``inplace`` (``F.relu``'s), the op ``relu_``: torch's
    function mode sees ``F.relu`` as one call, ``relu``, either way."""
    if inplace:
        return OPS["relu_"](a)  # type: ignore[no-any-return]
    refuse_bool_relu(a)
    recorded = needs_grad(a)
    return run_op(
        (a,), recorded, _relu, "ReluBackward0", bw_relu, after=OpNode.save_result, args=(a,)
    )


def _relu(a: Tensor) -> Tensor:
    """The kernel of :func:`relu`."""
    out = wrap(relu_values(a._data), a.dtype)
    lay_out(out, a)
    return out


def abs_values(x: Any) -> Any:
    """torch's abs kernel: ``|x|``; it has no bool kernel (refused once the operands are
    checked, so after the overlap checks of ``abs_``)."""
    if x.dtype == np.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return np.abs(x)


def absolute(a: Tensor) -> Tensor:
    """The absolute value ``|a|`` (``AbsBackward0``, saves self); Bool has no abs kernel."""

    def kernel() -> Tensor:
        refuse_out_call("abs", a)
        out = written_by_kernel(wrap(abs_values(a._data), a.dtype), a)  # through abs_out
        lay_out(out, a)
        return out

    def save(node: OpNode) -> None:
        node.save("self", a)

    return run_op((a,), needs_grad(a), kernel, "AbsBackward0", bw_abs, save=save)


def refuse_bool_neg(a: Tensor) -> None:
    """torch's ``neg`` and ``neg_`` refuse a bool tensor before the kernel's operand checks."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )


def neg(a: Tensor) -> Tensor:
    """-a (``NegBackward0``, saves nothing); refuses bool (:func:`refuse_bool_neg`)."""
    refuse_bool_neg(a)

    def kernel() -> Tensor:
        out = wrap(-a._data, a.dtype)
        lay_out(out, a)
        return out

    return run_op((a,), needs_grad(a), kernel, "NegBackward0", bw_neg)


def positive(a: Tensor) -> Tensor:
    """``a`` itself (``+a`` too), refused for a bool tensor as torch refuses ``+`` of one."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return a


def sign(a: Tensor, node: str = "SignBackward0") -> Tensor:
    """Sign of each element (its gradient is zero); ``node`` names it (``sgn`` for reals). A
    bool tensor is its own sign; torch's kernel is ``(0 < x) - (x < 0)``, so NaN's sign and
    -0.0's are 0.0."""

    def kernel() -> Tensor:
        x = a._data
        signs = x.copy() if x.dtype == np.bool_ else ((x > 0).astype(x.dtype) - (x < 0))
        out = wrap(signs, a.dtype)
        lay_out(out, a)
        return out

    return run_op((a,), needs_grad(a), kernel, node, _bw_zero)


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamp into [min, max]: ``ClampBackward1`` for number bounds (saves self and the bounds),
    ``ClampBackward0`` for tensor bounds (an edge to each; saves them and self), saved before the
    kernel's checks."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")

    def kernel() -> Tensor:
        dt = clamp_dtype(a, min, max)
        out = wrap(clamp_values(a._data.astype(dt.np, copy=False), raw(min), raw(max)), dt)
        lay_out(out, a, *[v for v in (min, max) if isinstance(v, Tensor)], common=dt)
        return out

    if tensor_bounds(min, max):

        def save(node: OpNode) -> None:
            inputs_needed(node)
            node.save("max", max)  # torch's order: max, min, then self
            node.save("min", min)
            node.save("self", a)

        return run_op(
            (a, min, max),
            needs_grad(a, min, max),
            kernel,
            "ClampBackward0",
            bw_clamp_tensors,
            save=save,
        )
    recorded = needs_grad(a)
    return run_op(
        (a,),
        recorded,
        kernel,
        "ClampBackward1",
        bw_clamp,
        number_bounds(min, max) if recorded else None,
        lambda node: node.save("self", a),
    )


def clamp_dtype(a: Tensor, lo: Any, hi: Any) -> dtypes.dtype:
    """torch's result type of clamp over self, min and max, and its refusals: tensor bounds that
    do not broadcast with self (checked first, as torch's iterator computes shapes before
    types); Bool has no clamp kernel; a number bound is converted to the result type, checked."""
    layout.broadcast_shapes(*[v.shape for v in (a, lo, hi) if isinstance(v, Tensor)])
    refuse_uint64([v.dtype for v in (a, lo, hi) if isinstance(v, Tensor)], lo, hi)
    dims: list[dtypes.dtype] = []
    zeros: list[dtypes.dtype] = []
    scalars: list[dtypes.dtype] = []
    for v in (a, lo, hi):
        if isinstance(v, Tensor):
            (dims if v._data.ndim else zeros).append(v.dtype)
        elif v is not None:
            scalars.append(scalar_dtype(v))
    dt = result_type(dims, zeros, scalars)
    if dt is dtypes.bool_:
        if isinstance(lo, Tensor) or isinstance(hi, Tensor):
            kernel = "clamp_cpu" if lo is not None and hi is not None else None
        elif lo is not None and hi is not None:
            kernel = "clamp_scalar_cpu"
        else:
            kernel = "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu"
        if kernel is not None:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    int_parameter(lo, dt)
    int_parameter(hi, dt)
    return dt
