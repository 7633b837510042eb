"""Activation layers: ReLU, Sigmoid, Tanh. They own nothing; they apply one function.

>>> import ownership
>>> ReLU()(ownership.tensor([-1.0, 2.0])), ReLU(inplace=True)
(tensor([0., 2.]), ReLU(inplace=True))
"""

from __future__ import annotations

from ownership._tensor import Tensor
from ownership.nn import functional as F
from ownership.nn.module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh"]


class ReLU(Module):
    """``max(0, x)`` elementwise; with ``inplace=True`` it overwrites its input (``relu_``)."""

    inplace: bool

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """``max(input, 0)``: a new tensor, or ``input`` itself written in place if ``inplace``."""
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        """``'inplace=True'`` when set, else empty (torch's repr)."""
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        """A new tensor (``SigmoidBackward0``); ``input`` is not modified."""
        return F.sigmoid(input)


class Tanh(Module):
    """``tanh(x)`` elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        """A new tensor (``TanhBackward0``); ``input`` is not modified."""
        return F.tanh(input)
