"""``diagonal``: the elements ``t[..., i, i + offset]`` of two dims as one last dim (a view).

torch's ``at::diagonal``: ``dim1`` and ``dim2`` are dropped from the sizes and strides, and a dim
of the diagonal's length is appended, of stride ``stride(dim1) + stride(dim2)``; the view starts
``offset`` elements along ``dim2`` (a negative ``offset``: along ``dim1``), except an empty
diagonal, which starts where ``t`` does. Writing into the view writes the diagonal of ``t``.
``DiagonalBackward0`` saves ``offset``, ``dim1`` and ``dim2`` as given (a negative one shown as the
unsigned 64-bit int, ``-1`` as ``2**64 - 1``) and ``t``'s sizes; its gradient is zeros with the
incoming gradient written onto the same diagonal.

>>> import ownership
>>> m = ownership.arange(9.0).reshape(3, 3)
>>> m.diagonal(), m.diagonal(1), m.diagonal(-1)
(tensor([0., 4., 8.]), tensor([1., 5.]), tensor([3., 7.]))
>>> m.diagonal().stride()
(4,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership.core import layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.common import needs_grad, run_op, wrap
from ownership.ops.view_geometry import op_geometry
from ownership.ops.views import _edge, _make

DiagonalGeometry = tuple[tuple[int, ...], tuple[int, ...], int, dict[str, Any]]


def diagonal_geometry(t: Tensor, offset: int, dim1: int, dim2: int) -> DiagonalGeometry:
    """Sizes, strides, the start (in elements, from ``t``'s) and the saved values of
    ``t.diagonal(offset, dim1, dim2)``; torch's errors for dims out of range or identical."""
    nd = t._data.ndim
    d1, d2 = layout.wrap_dim(dim1, nd), layout.wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    sizes, strides = list(t._data.shape), list(t._stride())
    n1, n2 = sizes[d1], sizes[d2]
    length = max(min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2), 0)
    start = 0
    if length:
        start = offset * strides[d2] if offset >= 0 else -offset * strides[d1]
    step = strides[d1] + strides[d2]
    for d in (max(d1, d2), min(d1, d2)):
        del sizes[d], strides[d]
    saved = {
        "dim1": as_saved(dim1),
        "dim2": as_saved(dim2),
        "offset": as_saved(offset),
        "self_sym_sizes": tuple(t._data.shape),
    }
    return (*sizes, length), (*strides, step), start, saved


def _bw_diagonal(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``diagonal_backward``: zeros of ``self``'s sizes, the gradient on the diagonal."""
    return (diagonal_backward(g[0], s["self_sym_sizes"], s["offset"], s["dim1"], s["dim2"]),)


def _bw_diagonal_backward(node: OpNode, s: Saved, g: Grads) -> Grads:
    return (diagonal(g[0], as_given(s["offset"]), as_given(s["dim1"]), as_given(s["dim2"])),)


def diagonal_backward(
    grad: Tensor, sizes: tuple[int, ...], offset: int, dim1: int, dim2: int
) -> Tensor:
    """``grad`` written onto the diagonal of a new contiguous zero tensor of ``sizes`` (``offset``,
    ``dim1`` and ``dim2`` as saved), as torch's kernel writes it: below autograd, so with no
    version bump; recorded as ``DiagonalBackwardBackward0`` when ``grad`` requires grad."""

    def kernel() -> Tensor:
        arr = np.zeros(sizes, grad._data.dtype)
        out = wrap(arr, grad.dtype)
        shape, strides, start, _ = diagonal_geometry(
            out, as_given(offset), as_given(dim1), as_given(dim2)
        )
        layout.strided(arr.reshape(-1), shape, strides, start)[...] = grad._data
        return out

    recorded = needs_grad(grad)
    return run_op(
        (grad,),
        recorded,
        kernel,
        "DiagonalBackwardBackward0",
        _bw_diagonal_backward,
        {"dim1": dim1, "dim2": dim2, "offset": offset} if recorded else None,
    )


def diagonal(t: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of ``dim1`` and ``dim2`` as a view (``DiagonalBackward0``)."""
    edge = _edge(t)
    shape, strides, start, saved = op_geometry(diagonal_geometry, t, (offset, dim1, dim2))
    return _make(
        t, shape, strides, t._offset + start, "DiagonalBackward0", _bw_diagonal, saved, edge
    )
