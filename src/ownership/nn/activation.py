"""Activation layers: ReLU, LeakyReLU, Sigmoid, Tanh. They own nothing; they apply one function.

>>> import ownership
>>> ReLU()(ownership.tensor([-1.0, 2.0])), ReLU(inplace=True)
(tensor([0., 2.]), ReLU(inplace=True))
"""

from __future__ import annotations

from ownership.core.tensor import Tensor
from ownership.nn import functional as F
from ownership.nn.module import Module

__all__ = ["LeakyReLU", "ReLU", "Sigmoid", "Tanh"]


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


class LeakyReLU(Module):
    """``x`` above 0, else ``negative_slope * x``; with ``inplace=True`` it overwrites its input
    (``leaky_relu_``, whose backward refuses a negative slope, as torch's)."""

    negative_slope: float
    inplace: bool

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """A new tensor, or ``input`` itself written in place if ``inplace``."""
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        """``'negative_slope=0.01'``, with ``', inplace=True'`` when set (torch's repr)."""
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


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
