"""Stateless functions of ``torch.nn.functional``: activations and losses.

>>> import ownership
>>> x = ownership.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
>>> loss = cross_entropy(x, ownership.tensor([2]))
>>> loss.grad_fn.name(), round(loss.item(), 4)
('NllLossBackward0', 0.4076)
"""

from __future__ import annotations

import warnings
from typing import Any

from ownership.core import op_registry
from ownership.core.op_registry import quiet
from ownership.core.tensor import Tensor
from ownership.ops import dropout as _dropout
from ownership.ops import leaky_relu as _leaky
from ownership.ops import loss as _loss
from ownership.ops import nn_ops as _nn
from ownership.ops import statistics as _stats
from ownership.ops.argument_values import tensor_arg
from ownership.ops.op_table import OpTable
from ownership.scope import module_getattr

ops: OpTable[Tensor] = op_registry.ops

# linear, batch_norm and the losses are the ops themselves (one definition, in ownership.ops),
# behind the engine's rule that numpy's floating-point warnings never reach the user.
cross_entropy = quiet(_loss.cross_entropy)
mse_loss = quiet(_loss.mse_loss)
nll_loss = quiet(_loss.nll_loss)
batch_norm = quiet(_nn.batch_norm)
threshold_ = quiet(_stats.threshold_)
_quiet_threshold = quiet(_stats.threshold)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``input`` where it is above ``threshold``, else ``value`` (``ThresholdBackward0``; in
    place, ``threshold_``, ``ThresholdBackward1``, with ``inplace=True``)."""
    if inplace:
        return threshold_(input, threshold, value)
    return _quiet_threshold(input, threshold, value)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``; torch's TypeError when ``input`` is not a tensor."""
    tensor_arg("linear", input)
    return _quiet_linear(input, weight, bias)


_quiet_linear = quiet(_nn.linear)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Random zeros while ``training`` (``ownership.ops.dropout``)."""
    tensor_arg("dropout", input)
    return _quiet_dropout(input, p, training, inplace)


_quiet_dropout = quiet(_dropout.dropout)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` above 0, else ``input * negative_slope`` (``LeakyReluBackward0``; in place,
    ``leaky_relu_``, with ``inplace=True``): ``ownership.ops.leaky_relu``."""
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _quiet_leaky_relu(input, negative_slope)


leaky_relu_ = quiet(_leaky.leaky_relu_)
_quiet_leaky_relu = quiet(_leaky.leaky_relu)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) (``ReluBackward0``; in place with ``inplace=True``)."""
    if not isinstance(input, Tensor):  # a tensor: nothing to refuse, no call
        tensor_arg("relu", input)
    return input.relu_() if inplace else ops.relu(input)


def sigmoid(input: Tensor) -> Tensor:
    """Logistic function (``SigmoidBackward0``)."""
    if not isinstance(input, Tensor):  # a tensor: nothing to refuse, no call
        tensor_arg("sigmoid", input)
    return ops.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """tanh (``TanhBackward0``)."""
    if not isinstance(input, Tensor):  # a tensor: nothing to refuse, no call
        tensor_arg("tanh", input)
    return ops.tanh(input)


def _implicit_dim(name: str, input: Tensor, dim: int | None) -> int:
    """torch's choice of dim when none is given (0 for 0-, 1- and 3-d input, else 1), warned."""
    if dim is not None:
        return dim
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if input.dim() in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """Softmax over ``dim`` (``SoftmaxBackward0``): the method ``input.softmax(dim)``."""
    return input.softmax(_implicit_dim("softmax", input, dim), dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """Log-softmax over ``dim``, stable (``LogSoftmaxBackward0``): the method
    ``input.log_softmax(dim)``."""
    return input.log_softmax(_implicit_dim("log_softmax", input, dim), dtype=dtype)


__all__ = [
    "batch_norm",
    "cross_entropy",
    "dropout",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
    "threshold",
    "threshold_",
]

# a public name of torch.nn.functional that the engine lacks: the scope error (ownership.scope)
__getattr__ = module_getattr("torch.nn.functional", __name__)
