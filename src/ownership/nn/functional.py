"""Stateless functions of ``torch.nn.functional``: activations and losses.

>>> import ownership
>>> x = ownership.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
>>> loss = cross_entropy(x, ownership.tensor([2]))
>>> loss.grad_fn.name(), round(loss.item(), 4)
('NllLossBackward0', 0.4076)
"""

from __future__ import annotations

from typing import Any

from ownership.ops import softmax as _sm
from ownership.ops import unary as _pw
from ownership.ops.loss import cross_entropy, mse_loss, nll_loss
from ownership.ops.nn_ops import batch_norm, linear
from ownership.ops.statistics import threshold
from ownership.tensor import Tensor

# linear, batch_norm and the losses are the ops themselves (one definition, in ownership.ops).


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
    "threshold",
]
