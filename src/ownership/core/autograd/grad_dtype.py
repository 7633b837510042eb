"""A leaf's ``grad_dtype``: the dtype its gradients take, torch's rule in one place.

By default a leaf's gradients take the leaf's own dtype (and follow it when ``.data`` changes
the dtype); ``t.grad_dtype = d`` makes them take ``d`` instead, and ``None`` lets them keep
whatever dtype they arrive in. The backward pass casts a gradient as it reaches the leaf's
``AccumulateGrad`` (before the leaf's hooks see it, and what ``autograd.grad`` returns for the
leaf); an assigned ``.grad`` must have that dtype. Only a leaf has one: reading or setting it on
another tensor is an error (torch's property and its checks: :mod:`ownership.ops.leaf_grad_dtype`,
set on the Tensor by ``ownership.installation.install()``). ``detach()``, ``.data``, copies and
``nn.Parameter`` make tensors with the default.

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

__all__ = ["LEAVES", "cast", "remember", "target"]

LEAVES: dict[int, weakref.ref[Any]] = {}
"""The tensors given a ``grad_dtype``, by id, while they live. While there is none, every
gradient takes its leaf's own dtype and the backward pass asks nothing more (one question per
accumulator run; while there is one, the backward loop casts each leaf's gradient)."""


def remember(t: Any) -> None:
    """Put ``t`` in :data:`LEAVES` until it dies (``t.grad_dtype = d`` does, before it sets the
    slot ``_grad_dtype``: :mod:`ownership.ops.leaf_grad_dtype`)."""
    key = id(t)
    if key in LEAVES:
        return

    def forget(ref: weakref.ref[Any]) -> None:
        if LEAVES.get(key) is ref:
            del LEAVES[key]

    LEAVES[key] = weakref.ref(t, forget)


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
