"""``t.grad_dtype``, torch's property of a leaf's gradient dtype, with its checks in torch's order.

The rule, the dtype a leaf's gradients take and their cast as they reach it, is core's
(:mod:`ownership.core.autograd.grad_dtype`); this is how a program reads and sets it, set on the
Tensor by :func:`ownership.installation.install` (parity).

>>> import ownership
>>> x = ownership.ones(2, requires_grad=True)
>>> x.grad_dtype, (x * 2).grad_dtype
Traceback (most recent call last):
RuntimeError: grad_dtype can only be accessed on leaf tensors.
"""

from __future__ import annotations

import weakref
from typing import Any

from ownership.core.autograd.grad_dtype import LEAVES, target
from ownership.core.dtypes import dtype as DType

__all__ = ["GRAD_DTYPE", "c_name", "grad_dtype_of", "set_grad_dtype"]


def c_name(d: DType) -> str:
    """The C type name torch's gradient-dtype errors print for ``d``: ``float``, ``double``..."""
    return {
        "float64": "double",
        "float32": "float",
        "int64": "long int",
        "int32": "int",
        "bool": "bool",
    }[d.name]


def remember(t: Any) -> None:
    """Put ``t`` in core's ``grad_dtype.LEAVES`` until it dies."""
    key = id(t)
    if key in LEAVES:
        return

    def forget(ref: weakref.ref[Any]) -> None:
        if LEAVES.get(key) is ref:
            del LEAVES[key]

    LEAVES[key] = weakref.ref(t, forget)


def grad_dtype_of(t: Any) -> DType | None:
    """``t.grad_dtype``: the leaf's :func:`~ownership.core.autograd.grad_dtype.target`; another
    tensor's is an error."""
    if not t.is_leaf:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return target(t)


def set_grad_dtype(t: Any, value: Any) -> None:
    """``t.grad_dtype = value``, with torch's checks in torch's order: the value's type; the
    tensor's ``.grad`` read (a non-leaf's warns), a leaf only; an existing gradient must already
    have the new dtype (None accepts any)."""
    if value is not None and not isinstance(value, DType):
        raise RuntimeError(
            f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}"
        )
    grad = t.grad
    if not t.is_leaf:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if grad is not None and value is not None and grad.dtype is not value:
        raise RuntimeError(
            f"Cannot set grad_dtype to '{value.short}' because there is already a gradient with "
            f"dtype '{c_name(grad.dtype)}'. Please clear the gradient (.grad = None) before "
            "changing grad_dtype, or ensure the new grad_dtype matches the existing gradient's "
            "dtype."
        )
    remember(t)
    t._grad_dtype = value
    acc = t._acc()  # the leaf's live accumulator takes it too (a later one reads it when made)
    if acc is not None:
        acc.grad_dtype = value


GRAD_DTYPE = property(
    grad_dtype_of,
    set_grad_dtype,
    doc="""The dtype a leaf's gradients take: its own unless set; None, any (see
        ``ownership.core.autograd.grad_dtype``).""",
)
"""The Tensor's property ``grad_dtype``."""
