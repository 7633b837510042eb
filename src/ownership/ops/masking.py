"""``masked_fill`` and ``masked_fill_``: a value written where a bool mask is True.

The value is a number (``MaskedFillBackward0``) or a 0-d tensor, which then gets a gradient too:
the sum of the incoming gradient where the mask is True (``MaskedFillBackward1``). Both nodes
save the mask (``_saved_mask``), so writing into the mask before backward is a version error.
The out-of-place op fills a contiguous copy of ``self`` broadcast with the mask; the in-place op
writes ``self`` under the in-place contract (one version bump), and the mask must broadcast to
``self``'s shape.

>>> import ownership
>>> scores = ownership.tensor([[0.5, 1.0, 2.0]])
>>> scores.masked_fill(ownership.tensor([False, True, True]), float("-inf"))
tensor([[0.5000,   -inf,   -inf]])
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import dtypes, layout
from ownership._tensor import Tensor
from ownership.autograd.node import Grads, OpNode, Saved
from ownership.inplace_rules import run_inplace
from ownership.ops import checks
from ownership.ops.common import needs_grad, record, sum_to, wrap
from ownership.ops.python_numbers import int_parameter

EXPANDED_WARNING = (
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"
)


def _fill_value(t: Tensor, mask: Tensor, value: Any) -> Any:
    """torch's refusals, in its order, then the value to write, as ``t``'s numpy dtype holds it
    (a float into an integer tensor is truncated; a number it cannot hold is refused)."""
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{checks.CPP_TYPES[mask.dtype.name]}"
        )
    number = value._data if isinstance(value, Tensor) else value
    if not isinstance(value, Tensor):
        int_parameter(value, t.dtype)
    return np.asarray(number).astype(t._data.dtype)


def _backward(self_shape: tuple[int, ...], has_value: bool) -> Any:
    """The backward of a masked fill: the gradient with 0 where the mask is True for ``self``
    (summed back to its shape), and for a tensor value the sum of it where the mask is True."""

    def bw(node: OpNode, s: Saved, g: Grads) -> Grads:
        gr, mask = g[0], s["mask"]
        d_self = sum_to(masked_fill(gr, mask, 0), self_shape) if node.needed[0] else None
        if not has_value:
            return (d_self,)
        d_value = None
        if node.needed[1]:
            d_value = (gr - masked_fill(gr, mask, 0)).sum()  # where the mask is True
        return (d_self, d_value)

    return bw


def masked_fill(t: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``value`` where ``mask`` is True, else ``t``: a new contiguous tensor of the broadcast
    shape of ``t`` and ``mask`` (``MaskedFillBackward0``/``1``; saves the mask)."""
    fill = _fill_value(t, mask, value)
    shape = layout.broadcast_shapes(mask._data.shape, t._data.shape)
    arr: NDArray[Any] = np.array(np.broadcast_to(t._data, shape), order="C")
    np.copyto(arr, fill, where=np.broadcast_to(mask._data, shape))
    out = wrap(arr, t.dtype)
    tensor_value = value if isinstance(value, Tensor) else None
    if needs_grad(t, tensor_value):
        has_value = tensor_value is not None
        name = "MaskedFillBackward1" if has_value else "MaskedFillBackward0"
        inputs = (t, tensor_value) if has_value else (t,)
        node = record(out, name, inputs, _backward(t._data.shape, has_value))
        node.needed = tuple(edge[0] is not None for edge in node._edges)
        node.save("mask", mask)
    return out


def masked_fill_(t: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``masked_fill`` written into ``t`` (the mask must broadcast to ``t``'s shape)."""
    tensor_value = value if isinstance(value, Tensor) else None
    has_value = tensor_value is not None
    fill: list[Any] = []

    def check_args() -> None:
        fill.append(_fill_value(t, mask, value))
        arr = t._data
        if 0 in arr.strides and layout.has_internal_overlap(arr.shape, arr.strides):
            warnings.warn(EXPANDED_WARNING, UserWarning, stacklevel=5)  # torch writes anyway

    def compute() -> NDArray[Any]:
        shape = layout.broadcast_shapes(mask._data.shape, t._data.shape)
        arr: NDArray[Any] = np.array(np.broadcast_to(t._data, shape), order="C")
        np.copyto(arr, fill[0], where=np.broadcast_to(mask._data, shape))
        return arr

    def save(node: OpNode) -> None:
        node.needed = tuple(edge[0] is not None for edge in node._edges)
        node.save("mask", mask)

    return run_inplace(
        t,
        (tensor_value,) if has_value else (),
        needs_grad(t, tensor_value),
        compute,
        t.dtype,
        "MaskedFillBackward1" if has_value else "MaskedFillBackward0",
        _backward(t._data.shape, has_value),
        None,
        save,
        check_overlap=False,
        check_args=check_args,
    )
