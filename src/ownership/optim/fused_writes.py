"""The fused in-place writes torch's optimizers make, each as one write (one version bump).

torch's single-tensor optimizers update their state with ``addcmul_``, ``addcdiv_``, ``lerp_``
and ``torch.maximum(..., out=)``: each is one kernel, so it moves the written tensor's
``_version`` by exactly one. Here each is the same arithmetic made of the engine's ops and
written once, so the versions an optimizer's step leaves behind are torch's. They run inside
``Optimizer.step`` (under ``no_grad``) on the optimizer's own tensors.
"""

from __future__ import annotations

from ownership.core.tensor import Tensor
from ownership.ops.checks import CPP_TYPES

__all__ = ["addcdiv_", "addcmul_", "lerp_", "maximum_"]


def addcmul_(target: Tensor, a: Tensor, b: Tensor, value: float = 1) -> Tensor:
    """``target += value * a * b``, one write (torch's ``Tensor.addcmul_``), in its kernel's
    order: ``value * a`` first (Adam's ``0.001 * g * g`` of a gradient of ``1e20`` is
    ``1e37``, where ``g * g`` would overflow a float32)."""
    return target.add_(a * value * b)


def addcdiv_(target: Tensor, a: Tensor, b: Tensor, value: float = 1) -> Tensor:
    """``target += value * a / b``, one write (torch's ``Tensor.addcdiv_``), ``value * a``
    first as in its kernel."""
    return target.add_(a * value / b)


def lerp_(target: Tensor, end: Tensor, weight: float) -> Tensor:
    """``target += weight * (end - target)``, one write (torch's ``Tensor.lerp_`` by a number),
    refused first, as torch's, when ``end`` has another dtype (a parameter made ``double()``
    after its moment was made)."""
    if end.dtype is not target.dtype:
        names = (CPP_TYPES.get(t.dtype.name, t.dtype.name) for t in (target, end))
        raise RuntimeError("expected dtype {} for `end` but got dtype {}".format(*names))
    return target.copy_(target + (-target + end) * weight)  # target first in a shape error


def maximum_(target: Tensor, other: Tensor) -> Tensor:
    """``target = max(target, other)`` element-wise, one write (``torch.maximum(..., out=target)``)."""
    return target.copy_(target.maximum(other))
