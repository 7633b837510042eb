"""A leaf's ``grad_dtype``: the dtype its gradients take, torch's rule in one place.

By default a leaf's gradients take the leaf's own dtype (and follow it when ``.data`` changes
the dtype); ``t.grad_dtype = d`` makes them take ``d`` instead, and ``None`` lets them keep
whatever dtype they arrive in. The backward pass casts a gradient as it reaches the leaf's
``AccumulateGrad`` (before the leaf's hooks see it, and what ``autograd.grad`` returns for the
leaf); an assigned ``.grad`` must have that dtype. Only a leaf has one: reading or setting it on
another tensor is an error. ``detach()``, ``.data``, copies and ``nn.Parameter`` make tensors
with the default.

>>> import ownership
>>> x = ownership.ones(2, requires_grad=True)
>>> x.grad_dtype = ownership.float64
>>> (x * 3).sum().backward()
>>> x.grad
tensor([3., 3.], dtype=torch.float64)
"""

from __future__ import annotations

import weakref
from typing import Any

from ownership.core.dtypes import dtype as DType

__all__ = ["LEAVES", "cast", "grad_dtype_of", "set_grad_dtype", "target"]

LEAVES: dict[int, weakref.ref[Any]] = {}
"""The tensors given a ``grad_dtype``, by id, while they live. While there is none, every
gradient takes its leaf's own dtype and the backward pass asks nothing more (one question per
accumulator run; while there is one, the backward loop casts each leaf's gradient)."""


def _remember(t: Any) -> None:
    """Put ``t`` in :data:`LEAVES` until it dies."""
    key = id(t)
    if key in LEAVES:
        return

    def forget(ref: weakref.ref[Any]) -> None:
        if LEAVES.get(key) is ref:
            del LEAVES[key]

    LEAVES[key] = weakref.ref(t, forget)


def c_name(d: DType) -> str:
    """The C type name torch's gradient-dtype errors print for ``d``: ``float``, ``double``..."""
    return {
        "float64": "double",
        "float32": "float",
        "int64": "long int",
        "int32": "int",
        "bool": "bool",
    }[d.name]


def target(t: Any) -> DType | None:
    """The dtype gradients of the leaf ``t`` are cast to (None: none, they keep theirs).

    A tensor outside :data:`LEAVES` was never given one, and its slot ``_grad_dtype`` is unset:
    asked first, so that the backward pass, which asks this of every leaf while some tensor has
    a ``grad_dtype``, never reads an unset slot (a failed read: Python's ``AttributeError``)."""
    if id(t) not in LEAVES:  # never set: the tensor's own, whatever it is now
        return t.dtype  # type: ignore[no-any-return]
    return t._grad_dtype  # type: ignore[no-any-return]


NOT_DIFFERENTIABLE = (
    'isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/'
    'torch/csrc/autograd/engine.cpp":998, please report a bug to PyTorch. '
)
"""torch's error (an assertion of its engine, with its build's path) when a gradient reaching a
leaf is not of a floating dtype: a grad_dtype that is not one, or None with such a gradient."""


def cast(t: Any, grad: Any) -> Any:
    """``grad`` as it reaches the leaf ``t``'s ``AccumulateGrad`` (torch's validate_outputs)."""
    dt = target(t)
    if dt is not None and grad.dtype is not dt:
        grad = grad.to(dt)
    if not grad.dtype.is_floating_point:
        raise RuntimeError(NOT_DIFFERENTIABLE)
    return grad


def grad_dtype_of(t: Any) -> DType | None:
    """``t.grad_dtype``: the leaf's :func:`target`; another tensor's is an error."""
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
    _remember(t)
    t._grad_dtype = value
