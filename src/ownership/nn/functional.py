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
from ownership.core.tensor import Tensor
from ownership.ops import table
from ownership.ops.argument_values import tensor_arg
from ownership.ops.methods import of_table
from ownership.ops.op_table import OpTable
from ownership.scope import module_getattr

ops: OpTable[Tensor] = op_registry.ops

# the ops of torch.nn.functional are ops of the table (ownership.ops.table.NN_FUNCTIONAL), each
# called through it under the name torch's function mode sees (ownership.ops.methods.of_table)
cross_entropy = of_table(table.cross_entropy)
mse_loss = of_table(table.mse_loss)
nll_loss = of_table(table.nll_loss)
batch_norm = of_table(table.batch_norm)
dropout = of_table(table.dropout)
leaky_relu = of_table(table.leaky_relu)
leaky_relu_ = of_table(table.leaky_relu_)
threshold = of_table(table._threshold)
threshold_ = of_table(table.threshold_)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (the op ``linear``); torch's TypeError when ``input`` or
    ``weight`` is not a tensor, or ``bias`` neither a tensor nor ``None`` (a ``Linear`` whose
    weight was registered as ``None``), raised before the op is called, as torch's parser does."""
    tensor_arg("linear", input)
    tensor_arg("linear", weight, "weight", 2)
    if bias is not None:
        tensor_arg("linear", bias, "bias", 3)
    return ops.linear(input, weight, bias)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) (``ReluBackward0``; in place with ``inplace=True``): the op ``relu``."""
    if not isinstance(input, Tensor):  # a tensor: nothing to refuse, no call
        tensor_arg("relu", input)
    return ops.relu(input, inplace)


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
