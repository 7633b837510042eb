"""Stateless functions of ``torch.nn.functional``: activations and losses.

>>> import ownership
>>> x = ownership.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
>>> loss = cross_entropy(x, ownership.tensor([2]))
>>> loss.grad_fn.name(), round(loss.item(), 4)
('NllLossBackward0', 0.4076)
"""

from __future__ import annotations

import math
from typing import Any

from ownership.ops import loss as _loss
from ownership.ops import nn_ops as _nn
from ownership.ops import softmax as _sm
from ownership.ops import unary as _pw
from ownership.tensor import Tensor


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (``AddmmBackward0`` for a 2-D input with a bias, as torch)."""
    return _nn.linear(input, weight, bias)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Per-channel normalisation, one node (``NativeBatchNormBackward0``).

    In training the batch needs more than one value per channel (torch's ``ValueError``).
    """
    if training:
        size = input._data.shape
        if math.prod(size) // (size[1] if len(size) > 1 else 1) == 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"torch.Size({list(size)})"
            )
    return _nn.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) (``ReluBackward0``; in place with ``inplace=True``)."""
    return input.relu_() if inplace else _pw.relu(input)


def sigmoid(input: Tensor) -> Tensor:
    """Logistic function (``SigmoidBackward0``)."""
    return _pw.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """tanh (``TanhBackward0``)."""
    return _pw.tanh(input)


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """Softmax over ``dim`` (``SoftmaxBackward0``)."""
    return _sm.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """Log-softmax over ``dim``, stable (``LogSoftmaxBackward0``)."""
    return _sm.log_softmax(input, dim, dtype)


def nll_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    ignore_index: int = -100,
) -> Tensor:
    """Negative log likelihood of class indices (``NllLossBackward0``)."""
    return _loss.nll_loss(input, target, reduction=reduction, ignore_index=ignore_index)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    ignore_index: int = -100,
) -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)`` with class-index targets."""
    return _loss.cross_entropy(input, target, reduction=reduction, ignore_index=ignore_index)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Squared error, averaged (``'mean'``), summed (``'sum'``) or elementwise (``'none'``)."""
    return _loss.mse_loss(input, target, reduction=reduction)


__all__ = [
    "batch_norm",
    "cross_entropy",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]
