"""``leaky_relu`` and ``leaky_relu_``: ``x`` where it is above 0, else ``x * negative_slope``.

torch's kernel, element for element: ``x > 0 ? x : x * slope``, the slope first rounded to the
tensor's dtype (so ``0 * -1.0`` is ``-0.0`` and a NaN stays NaN); floating dtypes only. The
out-of-place op saves its input (``LeakyReluBackward0``); the in-place one writes its tensor under
the in-place contract and saves the result (``LeakyReluBackward1``), whose backward refuses a
negative slope, as torch's: where the result is below 0 it cannot say which side the input was.
The gradient is an op of its own (``LeakyReluBackwardBackward0``), so it is differentiable again.

>>> import ownership
>>> leaky_relu(ownership.tensor([-2.0, 0.0, 3.0]), 0.1)
tensor([-0.2000,  0.0000,  3.0000])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import run_inplace
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import number_arg, tensor_arg
from ownership.ops.backward_ops import _zeros
from ownership.ops.common import lay_out, needs_grad, run_op, wrap

NEGATIVE_SLOPE_IN_PLACE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead. File an issue at https://github.com/pytorch/"
    "pytorch if you do require supporting in-place leakRelu backward calculation with negative "
    "slope"
)


def _checked(name: str, t: Any, slope: Any) -> None:
    """torch's argument refusals: a tensor, a number slope."""
    tensor_arg(name, t)
    number_arg(name, slope, "negative_slope", 2)


def _values(x: NDArray[Any], slope: Any) -> NDArray[Any]:
    """torch's kernel: ``x > 0 ? x : x * slope``, the slope rounded to ``x``'s dtype first; it
    has floating kernels only (refused once the operands are checked, so after the overlap
    checks of ``leaky_relu_``)."""
    if x.dtype.kind != "f":
        short = dtypes.from_numpy_dtype(x.dtype).short
        raise NotImplementedError(f"\"leaky_relu_cpu\" not implemented for '{short}'")
    return np.where(x > 0, x, x * x.dtype.type(slope))


def leaky_relu_backward(grad: Tensor, x: Tensor, slope: Any, is_result: bool) -> Tensor:
    """torch's ``leaky_relu_backward``: ``grad`` where ``x`` (the input, or the result when
    ``is_result``) is above 0, else ``grad * slope``; recorded as
    ``LeakyReluBackwardBackward0`` when it must be."""
    if is_result and float(slope) < 0:
        raise RuntimeError(NEGATIVE_SLOPE_IN_PLACE)

    def kernel() -> Tensor:
        g = grad._data
        out = wrap(np.where(x._data > 0, g, g * g.dtype.type(slope)), grad.dtype)
        lay_out(out, x, grad)  # torch's iterator reads the input (or result) first
        return out

    def bw(node: OpNode, s: Saved, gg: Grads) -> Grads:
        return (leaky_relu_backward(gg[0], x, slope, is_result), _zeros(gg[0]))

    recorded = needs_grad(grad, x)
    return run_op(
        (grad, x),
        recorded,
        kernel,
        "LeakyReluBackwardBackward0",
        bw,
        {"negative_slope": slope} if recorded else None,
    )


def _bw_leaky_relu(node: OpNode, s: Saved, g: Grads) -> Grads:
    return (leaky_relu_backward(g[0], s["self"], s["negative_slope"], False),)


def _bw_leaky_relu_(node: OpNode, s: Saved, g: Grads) -> Grads:
    return (leaky_relu_backward(g[0], s["result"], s["negative_slope"], True),)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` above 0, else ``input * negative_slope`` (``LeakyReluBackward0``, saves
    ``input``); with ``inplace``, :func:`leaky_relu_` (``F.leaky_relu``'s one call, as torch's
    function mode sees it)."""
    if inplace:
        return leaky_relu_(input, negative_slope)
    _checked("leaky_relu", input, negative_slope)

    def kernel() -> Tensor:
        out = wrap(_values(input._data, negative_slope), input.dtype)
        lay_out(out, input)
        return out

    recorded = needs_grad(input)
    return run_op(
        (input,),
        recorded,
        kernel,
        "LeakyReluBackward0",
        _bw_leaky_relu,
        {"negative_slope": negative_slope} if recorded else None,
        lambda node: node.save("self", input),
    )


def leaky_relu_(t: Tensor, negative_slope: Any = 0.01) -> Tensor:
    """:func:`leaky_relu` written into ``t`` (``LeakyReluBackward1``, saves the result)."""
    _checked("leaky_relu_", t, negative_slope)
    return run_inplace(
        t,
        (),
        needs_grad(t),
        lambda: _values(t._data, negative_slope),
        t.dtype,
        "LeakyReluBackward1",
        _bw_leaky_relu_,
        {"negative_slope": negative_slope},
        save_result=True,
    )
