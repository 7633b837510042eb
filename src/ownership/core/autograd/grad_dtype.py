"""A leaf's ``grad_dtype``: the dtype its gradients take, torch's rule in one place.

By default the leaf's own dtype; ``t.grad_dtype = d`` makes it ``d``, ``None`` keeps whatever
arrives. The leaf's ``AccumulateGrad`` keeps it from when it was made (or set), and the backward
pass casts each gradient on its way there (before the node's hooks). The property and its
checks: :mod:`ownership.ops.leaf_grad_dtype`.

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

LEAVES: dict[int, weakref.ref[Any]] = {}
"""The tensors given a ``grad_dtype``, by id, while they live (``t.grad_dtype = d``'s setter,
parity's, fills it)."""


def target(t: Any) -> DType | None:
    """The dtype gradients of the leaf ``t`` are cast to (None: they keep theirs)."""
    if id(t) not in LEAVES:  # never set (its slot unset): the tensor's own
        return t.dtype  # type: ignore[no-any-return]
    return t._grad_dtype  # type: ignore[no-any-return]


NOT_DIFFERENTIABLE = (
    'isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/'
    'torch/csrc/autograd/engine.cpp":998, please report a bug to PyTorch. '
)
"""torch's error when a gradient reaching a leaf is not of a floating dtype."""


def cast(dt: DType | None, grad: Any) -> Any:
    """``grad`` as torch's ``validate_outputs`` passes it to an ``AccumulateGrad`` whose gradients
    take ``dt`` (its ``grad_dtype``; None: any floating dtype)."""
    if dt is not None and grad.dtype is not dt:
        grad = grad.to(dt)
    if not grad.dtype.is_floating_point:
        raise RuntimeError(NOT_DIFFERENTIABLE)
    return grad
