"""``floor``, ``ceil``, ``round`` (to ``decimals`` places), ``trunc`` and their in-place forms.

Each keeps ``self``'s dtype: an integer tensor is returned as a copy (already whole), a bool one
is refused by name of torch's kernel (``"floor_vml_cpu" not implemented for 'Bool'``), and
``round(decimals=...)`` takes floating tensors only. ``round`` rounds half to even, and with
``decimals`` computes as torch's kernel does, in ``self``'s dtype: ``rint(x * 10**d) / 10**d``
(``rint(x / 10**-d) * 10**-d`` for negative ``d``). Their gradient is zero everywhere (the
results are steps); the nodes (``FloorBackward0``, ``CeilBackward0``, ``RoundBackward0``, with
``decimals`` ``RoundBackward1``, ``TruncBackward0``) save nothing. The in-place forms write
``self`` under the in-place contract, one version bump.

>>> import ownership
>>> x = ownership.tensor([-1.5, -0.5, 0.5, 1.5, 2.5])
>>> x.floor(), x.round()
(tensor([-2., -1.,  0.,  1.,  2.]), tensor([-2., -0.,  0.,  2.,  2.]))
>>> ownership.tensor([1234.5678]).round(decimals=-2)
tensor([1200.])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import run_inplace
from ownership.core.tensor import Tensor
from ownership.ops.common import (
    lay_out,
    needs_grad,
    run_op,
    wrap,
    zeros_like_grad,
)

_KERNELS: dict[str, Callable[[NDArray[Any]], NDArray[Any]]] = {
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,
    "trunc": np.trunc,
}


def _bw_zero(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``zeros_like(grad)``: a step function has no slope (a new tensor, no history)."""
    return (zeros_like_grad(g[0]),)


def _node(name: str, decimals: int | None) -> str:
    """The node of a rounding op: ``RoundBackward1`` for ``round`` given ``decimals``."""
    return f"{name.capitalize()}Backward{0 if decimals is None else 1}"


def _check(t: Tensor, name: str, decimals: int | None) -> None:
    """torch's refusals: no bool kernel; ``round(decimals=...)`` has floating kernels only."""
    dt = t.dtype
    if decimals is not None and not dt.is_floating_point:
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt.short}'")
    if dt is dtypes.bool_:
        raise NotImplementedError(f"\"{name}_vml_cpu\" not implemented for 'Bool'")


def _values(arr: NDArray[Any], name: str, decimals: int | None) -> NDArray[Any]:
    """The rounded values of ``arr`` (a copy of an integer array), in its dtype."""
    if arr.dtype.kind in "iu":
        return arr.copy()
    if not decimals:
        return _KERNELS[name](arr)
    scale = arr.dtype.type(10.0 ** abs(decimals))  # torch's ten_pow, in self's dtype
    if decimals > 0:
        return np.asarray(np.rint(arr * scale) / scale)
    return np.asarray(np.rint(arr / scale) * scale)


def _rounded(t: Tensor, name: str, decimals: int | None = None) -> Tensor:
    _check(t, name, decimals)

    def kernel() -> Tensor:
        out = wrap(_values(t._data, name, decimals), t.dtype)
        lay_out(out, t)
        return out

    return run_op((t,), needs_grad(t), kernel, _node(name, decimals), _bw_zero)


def _rounded_(t: Tensor, name: str, decimals: int | None = None) -> Tensor:
    def compute() -> NDArray[Any]:
        _check(t, name, decimals)  # the kernel's refusal: after the overlap checks
        return _values(t._data, name, decimals)

    return run_inplace(t, (), needs_grad(t), compute, t.dtype, _node(name, decimals), _bw_zero)


def floor(t: Tensor) -> Tensor:
    """The largest whole number not above each element (``FloorBackward0``)."""
    return _rounded(t, "floor")


def ceil(t: Tensor) -> Tensor:
    """The smallest whole number not below each element (``CeilBackward0``)."""
    return _rounded(t, "ceil")


def trunc(t: Tensor) -> Tensor:
    """Each element with its fraction dropped, toward zero (``TruncBackward0``)."""
    return _rounded(t, "trunc")


def round_(t: Tensor, decimals: int | None = None) -> Tensor:
    """``round`` in place."""
    return _rounded_(t, "round", decimals)


def rounded(t: Tensor, decimals: int | None = None) -> Tensor:
    """Each element to the nearest whole number (half to even), or to ``decimals`` places
    (``RoundBackward0``, or ``RoundBackward1`` when ``decimals`` is given)."""
    return _rounded(t, "round", decimals)


def floor_(t: Tensor) -> Tensor:
    """``floor`` in place."""
    return _rounded_(t, "floor")


def ceil_(t: Tensor) -> Tensor:
    """``ceil`` in place."""
    return _rounded_(t, "ceil")


def trunc_(t: Tensor) -> Tensor:
    """``trunc`` in place."""
    return _rounded_(t, "trunc")
