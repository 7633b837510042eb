"""``tril`` and ``triu``: the lower or upper triangle of the last two dims, zeros elsewhere.

``diagonal`` moves the edge: 0 keeps the main diagonal, a positive value keeps that many
diagonals above it too, a negative one drops that many below it (``triu`` mirrors it). A tensor
of fewer than two dims is refused; more dims are a batch of matrices. The result is a new
contiguous tensor of ``self``'s dtype; ``tril_``/``triu_`` write ``self`` under the in-place
contract. The nodes (``TrilBackward0``, ``TriuBackward0``) save ``diagonal``, and the gradient is
the incoming one cut to the same triangle (differentiable: the same op).

>>> import ownership
>>> ownership.ones(2, 3).tril()
tensor([[1., 0., 0.],
        [1., 1., 0.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import run_inplace
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.common import needs_grad, run_op, wrap


def _check(t: Tensor, name: str) -> None:
    if t._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def _kept(arr: NDArray[Any], name: str, diagonal: int) -> NDArray[Any]:
    """The triangle of ``arr``'s last two dims that ``name`` keeps, zeros elsewhere (a new
    C-ordered array)."""
    rows, cols = arr.shape[-2:]
    lower = np.tri(rows, cols, diagonal, dtype=bool)
    keep = lower if name == "tril" else ~np.tri(rows, cols, diagonal - 1, dtype=bool)
    out: NDArray[Any] = np.where(keep, arr, np.zeros((), arr.dtype))
    return np.asarray(out, order="C")


def _backward(name: str) -> Any:
    def bw(node: OpNode, s: Saved, g: Grads) -> Grads:
        """d tril(self, k) = tril(d, k) (``triu`` alike)."""
        return (_triangle(g[0], name, as_given(s["diagonal"])),)

    return bw


_BACKWARD = {"tril": _backward("tril"), "triu": _backward("triu")}


def _triangle(t: Tensor, name: str, diagonal: int) -> Tensor:
    _check(t, name)
    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        lambda: wrap(_kept(t._data, name, diagonal), t.dtype),
        f"{name.capitalize()}Backward0",
        _BACKWARD[name],
        {"diagonal": as_saved(diagonal)} if recorded else None,
    )


def _triangle_(t: Tensor, name: str, diagonal: int) -> Tensor:
    return run_inplace(
        t,
        (),
        needs_grad(t),
        lambda: _kept(t._data, name, diagonal),
        t.dtype,
        f"{name.capitalize()}Backward0",
        _BACKWARD[name],
        {"diagonal": as_saved(diagonal)},
        check_args=lambda: _check(t, name),
    )


def tril(t: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (on and below the ``diagonal``-th diagonal), zeros above."""
    return _triangle(t, "tril", diagonal)


def triu(t: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (on and above the ``diagonal``-th diagonal), zeros below."""
    return _triangle(t, "triu", diagonal)


def tril_(t: Tensor, diagonal: int = 0) -> Tensor:
    """``tril`` in place."""
    return _triangle_(t, "tril", diagonal)


def triu_(t: Tensor, diagonal: int = 0) -> Tensor:
    """``triu`` in place."""
    return _triangle_(t, "triu", diagonal)
