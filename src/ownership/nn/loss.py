"""Loss modules: ``MSELoss`` and ``CrossEntropyLoss``, the module form of the functional losses.

They own nothing (no parameters, no buffers); each holds its options and calls
:mod:`ownership.nn.functional`. Options are keyword-only here (torch also accepts them
positionally, after arguments ownership does not have).

>>> import ownership
>>> loss_fn = CrossEntropyLoss()
>>> loss_fn(ownership.tensor([[2.0, 0.0]]), ownership.tensor([0]))
tensor(0.1269)
"""

from __future__ import annotations

from ownership.core.tensor import Tensor
from ownership.nn import functional as F
from ownership.nn.module import Module

__all__ = ["CrossEntropyLoss", "MSELoss"]


class MSELoss(Module):
    """Squared error between input and target: ``'mean'`` (default), ``'sum'`` or ``'none'``."""

    reduction: str

    def __init__(self, *, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.mse_loss(input, target)`` with this module's ``reduction``."""
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(Module):
    """Cross-entropy of logits ``input`` (N, C) against class indices ``target`` (N,).

    Targets equal to ``ignore_index`` contribute nothing, and ``'mean'`` averages over the
    other targets only; ``label_smoothing`` mixes in the uniform distribution over the classes.
    """

    ignore_index: int
    reduction: str
    label_smoothing: float

    def __init__(
        self, *, ignore_index: int = -100, reduction: str = "mean", label_smoothing: float = 0.0
    ) -> None:
        super().__init__()
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.cross_entropy(input, target)`` with this module's ``reduction``,
        ``ignore_index`` and ``label_smoothing``."""
        return F.cross_entropy(
            input,
            target,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
        )
