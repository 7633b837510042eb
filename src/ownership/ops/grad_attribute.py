"""``t.grad``, torch's property of a tensor's accumulated gradient: the warning when a non-leaf's
is read, and the checks of an assigned one in torch's order.

The rule, how a backward accumulates into a leaf's ``.grad``, is core's
(:mod:`ownership.core.autograd.accumulate_grad`, which writes the slot ``_grad``); the dtype an
assigned gradient must have is :func:`ownership.core.autograd.grad_dtype.target`. This is how a
program reads, sets and deletes it, set on the Tensor by :func:`ownership.installation.install`
(parity).

>>> import ownership
>>> x = ownership.ones(2, requires_grad=True)
>>> x.grad = ownership.zeros(3)
Traceback (most recent call last):
RuntimeError: attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the gradient and the tensor are the same size
"""

from __future__ import annotations

from typing import Any

from ownership.core.autograd.grad_dtype import target
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.ops.leaf_grad_dtype import c_name

__all__ = ["GRAD", "NON_LEAF_GRAD_WARNING", "delete_grad", "grad_of", "set_grad"]

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)


def grad_of(t: Any) -> Tensor | None:
    """``t.grad``: the accumulated gradient of a leaf (None until a backward reaches it); a
    non-leaf's that does not retain its gradient warns."""
    if t._history is None and t._base is None:  # no grad_fn (the common case): a leaf
        return t._grad  # type: ignore[no-any-return]
    # torch's C++ ``is_leaf`` reads the ``grad_fn`` slot as it is, never refreshed: a view
    # whose base was written under no_grad shows its ``.grad`` (with the warning) where its
    # ``grad_fn`` raises
    if not t._retains_grad and t._requires_grad and t._history is not None:
        warn_at_user(NON_LEAF_GRAD_WARNING)
    return t._grad  # type: ignore[no-any-return]


def set_grad(t: Any, value: Tensor | None) -> None:
    """``t.grad = value``, with torch's checks in torch's order: a tensor or None, not ``t``
    itself, of the dtype ``t``'s gradients take (its ``grad_dtype``), of ``t``'s shape."""
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got grad of type "
                f"{type(value).__name__}"
            )
        if value is t:
            raise RuntimeError("can't assign Variable as its own grad")
        dt = target(t)
        if dt is not None and value.dtype is not dt:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{c_name(value.dtype)}' "
                f"to a tensor with grad_dtype '{dt.short}'. The gradient must match the tensor's "
                "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
                "caution. Diverging the dtypes of a tensor and its gradient may break downstream "
                "systems that assume they match."
            )
        if value._data.shape != t._data.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                f"size '{list(t.shape)}'. Please ensure that the gradient and the tensor are "
                "the same size"
            )
    t._grad = value


def delete_grad(t: Any) -> None:
    """``del t.grad``: no gradient."""
    t._grad = None


GRAD = property(
    grad_of,
    set_grad,
    delete_grad,
    doc="The accumulated gradient of a leaf (None until a backward reaches it).",
)
"""The Tensor's property ``grad``."""
