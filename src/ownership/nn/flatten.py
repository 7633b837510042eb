"""Flatten: a layer that merges a range of dims into one, ``input.flatten(start_dim, end_dim)``.

By default every dim but the first (the batch) is merged. The result is a view of the input
when its layout allows (as ``flatten`` itself), so it shares the input's storage and version
counter.

>>> import ownership
>>> layer = Flatten()
>>> layer
Flatten(start_dim=1, end_dim=-1)
>>> layer(ownership.zeros(2, 3, 4)).shape
torch.Size([2, 12])
"""

from __future__ import annotations

from ownership.core.tensor import Tensor
from ownership.nn.module import Module

__all__ = ["Flatten"]


class Flatten(Module):
    """``input.flatten(start_dim, end_dim)``; owns nothing."""

    start_dim: int
    end_dim: int

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        """``input.flatten(self.start_dim, self.end_dim)``, with its errors."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        """``'start_dim=1, end_dim=-1'`` (torch's repr)."""
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
