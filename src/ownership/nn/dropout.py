"""``Dropout``: a layer that zeroes elements at random while training and passes its input on
unchanged in evaluation mode (``model.eval()``). It owns no parameter and no buffer: its only
state is the module's ``training`` flag.

>>> import ownership
>>> layer = Dropout(0.25)
>>> layer
Dropout(p=0.25, inplace=False)
>>> x = ownership.ones(4)
>>> layer.eval()(x) is x
True
"""

from __future__ import annotations

from ownership.core.tensor import Tensor
from ownership.nn import functional as F
from ownership.nn.module import Module
from ownership.ops.dropout import check_probability

__all__ = ["Dropout"]


class Dropout(Module):
    """``F.dropout(input, p, self.training, inplace)``: random zeros while training only."""

    p: float
    inplace: bool

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        check_probability(p)
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """A new tensor while training (``input`` itself, written, if ``inplace``); ``input``
        itself in evaluation mode."""
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        """``'p=0.5, inplace=False'`` (torch's repr)."""
        return f"p={self.p}, inplace={self.inplace}"
