"""``log1p``, ``expm1`` and ``erf``, and their in-place forms: elementwise functions of one
tensor, accurate where the plain formulas lose digits.

``log1p(x)`` is ``log(1 + x)`` and ``expm1(x)`` is ``exp(x) - 1``, both exact near 0 where the
plain formulas round ``1 + x`` away; ``erf`` is the error function. Integer and bool tensors give
the default float dtype (so their in-place forms refuse them, as torch does, by the result type).
Each node saves what torch's saves: ``Log1PBackward0`` and ``ErfBackward0`` their input,
``Expm1Backward0`` its result; the gradients are torch's formulas in the engine's ops
(``grad / (self + 1)``, ``grad * (result + 1)``, ``2 / sqrt(pi) * exp(-self**2) * grad``), so
they are differentiable.

>>> import ownership
>>> x = ownership.tensor([1e-10, 0.5], dtype=ownership.float64)
>>> x.log1p(), x.expm1()
(tensor([1.0000e-10, 4.0547e-01], dtype=torch.float64), tensor([1.0000e-10, 6.4872e-01], dtype=torch.float64))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core.autograd.node import BackwardFn, Grads, OpNode, Saved
from ownership.core.inplace_rules import run_inplace
from ownership.core.tensor import Tensor
from ownership.ops.arithmetic import mul_scalar
from ownership.ops.common import needs_grad, run_op, wrap
from ownership.ops.inplace import snapshot
from ownership.ops.op_table import ops
from ownership.ops.unary import floating

_ERF: Any = np.frompyfunc(math.erf, 1, 1)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)  # torch's ``2.0 / sqrt(M_PI)``


def _erf(arr: NDArray[Any]) -> NDArray[Any]:
    """The error function of each element, in ``arr``'s dtype (from the double value)."""
    return np.asarray(_ERF(arr.astype(np.float64)), dtype=np.float64).astype(arr.dtype)


def _plus_one(t: Tensor) -> Tensor:
    """``t + 1`` as torch's C++ formulas write it: ``add.Scalar`` (``AddBackward1``)."""
    return run_op(
        (t,),
        needs_grad(t),
        lambda: wrap(t._data + t._data.dtype.type(1), t.dtype),
        "AddBackward1",
        lambda node, s, g: (g[0],),
    )


def _bw_log1p(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``log1p_backward``: ``grad / (self + 1)``."""
    return (ops.div(g[0], _plus_one(s["self"])),)


def _bw_expm1(node: OpNode, s: Saved, g: Grads) -> Grads:
    """``grad * (result + 1)``."""
    return (ops.mul(g[0], _plus_one(s["result"])),)


def _bw_erf(node: OpNode, s: Saved, g: Grads) -> Grads:
    """``2 / sqrt(pi) * exp(-self**2) * grad``."""
    slope = mul_scalar(ops.exp(ops.neg(ops.pow(s["self"], 2))), _TWO_OVER_SQRT_PI)
    return (ops.mul(slope, g[0]),)


_FUNCTIONS: dict[str, tuple[Callable[[NDArray[Any]], NDArray[Any]], str, BackwardFn, str]] = {
    "log1p": (np.log1p, "Log1PBackward0", _bw_log1p, "self"),
    "expm1": (np.expm1, "Expm1Backward0", _bw_expm1, "result"),
    "erf": (_erf, "ErfBackward0", _bw_erf, "self"),
}


def _apply(t: Tensor, name: str) -> Tensor:
    fn, node_name, backward, saves = _FUNCTIONS[name]

    def kernel() -> Tensor:
        arr, dt = floating(t)
        return wrap(np.asarray(fn(arr)), dt)

    if saves == "result":
        return run_op(
            (t,),
            needs_grad(t),
            kernel,
            node_name,
            backward,
            after=OpNode.save_result,
        )
    return run_op(
        (t,), needs_grad(t), kernel, node_name, backward, save=lambda node: node.save("self", t)
    )


def _apply_(t: Tensor, name: str) -> Tensor:
    fn, node_name, backward, saves = _FUNCTIONS[name]

    def save(node: OpNode) -> None:
        node.save("self", snapshot(t))  # the value before the write

    return run_inplace(
        t,
        (),
        needs_grad(t),
        lambda: np.asarray(fn(floating(t)[0])),
        floating(t)[1],
        node_name,
        backward,
        None,
        save if saves == "self" else None,
        save_result=saves == "result",
    )


def log1p(t: Tensor) -> Tensor:
    """``log(1 + t)``, exact near 0 (``Log1PBackward0``, saves self)."""
    return _apply(t, "log1p")


def expm1(t: Tensor) -> Tensor:
    """``exp(t) - 1``, exact near 0 (``Expm1Backward0``, saves result)."""
    return _apply(t, "expm1")


def erf(t: Tensor) -> Tensor:
    """The error function (``ErfBackward0``, saves self)."""
    return _apply(t, "erf")


def log1p_(t: Tensor) -> Tensor:
    """``log1p`` in place."""
    return _apply_(t, "log1p")


def expm1_(t: Tensor) -> Tensor:
    """``expm1`` in place."""
    return _apply_(t, "expm1")


def erf_(t: Tensor) -> Tensor:
    """``erf`` in place."""
    return _apply_(t, "erf")
