"""``masked_fill`` and ``masked_fill_``: a value written where a bool mask is True.

The value is a number (``MaskedFillBackward0``) or a 0-d tensor, which then gets a gradient too:
the sum of the incoming gradient where the mask is True (``MaskedFillBackward1``). Both nodes
save the mask (``_saved_mask``), so writing into the mask before backward is a version error.
The out-of-place op fills a contiguous copy of ``self`` broadcast with the mask; the in-place op
writes ``self`` under the in-place contract (one version bump), in torch's order: its arguments,
then the written tensor (expanded, it is written with torch's deprecation warning; the mask may be
its own elements but not overlap it otherwise), then the mask must broadcast to ``self``'s shape.

>>> import ownership
>>> scores = ownership.tensor([[0.5, 1.0, 2.0]])
>>> scores.masked_fill(ownership.tensor([False, True, True]), float("-inf"))
tensor([[0.5000,   -inf,   -inf]])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import (
    Write,
    check_inputs_apart,
    check_result,
    overlaps_itself,
    run_inplace,
)
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.ops import checks
from ownership.ops.common import inputs_needed, needs_grad, run_op, sum_to, wrap

EXPANDED_WARNING = (
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"
)


def warn_expanded(t: Tensor) -> None:
    """torch's deprecation warning of a masked fill of an expanded tensor (``t[mask] = number``
    included), which it then writes, at the user's line."""
    if overlaps_itself(t):
        warn_at_user(EXPANDED_WARNING)


def _check_arguments(mask: Tensor, value: Any) -> None:
    """torch's refusals of the arguments, in its order: a value tensor of 1 or more dims, a mask
    that is not bool."""
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


def fill_value(t: Tensor, value: Any) -> Any:
    """The value to write, as ``t``'s numpy dtype holds it: torch's kernel converts it (a
    one-element tensor's item) to ``t``'s dtype, checked, once the shapes are (a float into an
    integer tensor is truncated; a number the dtype cannot hold is refused). ``t[mask] = value``
    of one element is ``masked_fill_`` too (``ops/indexing.py``)."""
    checks.fits(t.dtype, value.item() if isinstance(value, Tensor) else value)
    if isinstance(value, Tensor):
        return value._data.astype(t._data.dtype)
    if isinstance(value, complex | np.complexfloating) and t.dtype is not dtypes.bool_:
        value = value.real  # its imaginary part is 0 (checked)
    return np.asarray(value).astype(t._data.dtype)


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
    shape of ``t`` and ``mask`` (``MaskedFillBackward0``/``1``; saves the mask). torch's order:
    the node and its saved mask (:func:`run_op`), the shapes (its composite's
    ``expand_outplace``), then ``masked_fill_``'s checks of its arguments."""
    tensor_value = value if isinstance(value, Tensor) else None
    has_value = tensor_value is not None

    def kernel() -> Tensor:
        shape = layout.broadcast_shapes(mask._data.shape, t._data.shape)
        _check_arguments(mask, value)
        arr: NDArray[Any] = np.array(np.broadcast_to(t._data, shape), order="C")
        np.copyto(arr, fill_value(t, value), where=np.broadcast_to(mask._data, shape))
        return wrap(arr, t.dtype)

    def save(node: OpNode) -> None:
        inputs_needed(node)
        node.save("mask", mask)

    # the mask is an operand: a normal one brings autograd in for an inference ``t``
    return run_op(
        (t, tensor_value) if has_value else (t,),
        needs_grad(t, mask) if tensor_value is None else needs_grad(t, mask, tensor_value),
        kernel,
        "MaskedFillBackward1" if has_value else "MaskedFillBackward0",
        _backward(t._data.shape, has_value),
        save=save,
    )


def masked_fill_(t: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``masked_fill`` written into ``t`` (the mask must broadcast to ``t``'s shape): the
    elements the mask picks alone, so into an expanded ``t`` a location shared with elements it
    does not pick is written too."""
    tensor_value = value if isinstance(value, Tensor) else None
    has_value = tensor_value is not None

    def check_args() -> None:  # torch's order: the arguments, the overlaps, the shapes, the value
        _check_arguments(mask, value)
        warn_expanded(t)
        check_inputs_apart(t, (mask,))

    def compute() -> Write:
        shape = layout.broadcast_shapes(t._data.shape, mask._data.shape)  # the written one first
        check_result(t, shape, t.dtype)
        fill = fill_value(t, value)  # converted (checked) once the shapes are
        picked = np.broadcast_to(mask._data, shape)
        if np.may_share_memory(picked, t._data):  # the mask as it was before the write
            picked = picked.copy()
        # the picked elements alone: into an expanded ``t`` each writes the one value, so a
        # location shared with elements the mask leaves holds it too
        return Write(shape, lambda into: np.copyto(into, fill, where=picked))

    def save(node: OpNode) -> None:
        inputs_needed(node)
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
        keyed=(mask,),
    )
