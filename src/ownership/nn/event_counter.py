"""EventCounter: a layer that keeps a running event counter alongside its weights.

The unit's self-test asks: *a layer keeps a running event counter alongside its weights —
Parameter or buffer?* This is that layer, built the right way. It wraps a module (whose
parameters stay parameters) and counts the samples that went through it in ``count``, an int64
**buffer**:

- it is saved and loaded with the weights (``state_dict`` has ``'count'``);
- it never requires grad, never gets a ``.grad``, and is not in ``parameters()``, so no
  optimizer touches it;
- only ``forward`` writes it, in place, under ``no_grad``.

>>> import ownership
>>> layer = EventCounter(ownership.nn.Linear(3, 1))
>>> _ = layer(ownership.ones(4, 3)); _ = layer(ownership.ones(3))
>>> layer.count, [name for name, _ in layer.named_parameters()], list(layer.state_dict())
(tensor(5), ['module.weight', 'module.bias'], ['count', 'module.weight', 'module.bias'])
"""

from __future__ import annotations

from typing import Any

from ownership.core import dtypes, grad_mode
from ownership.core.tensor import Tensor
from ownership.nn.module import Module
from ownership.ops.creation import zeros

__all__ = ["EventCounter"]


class EventCounter(Module):
    """Call ``module`` and count the samples seen (dim 0 of the input; a 1-D input is one).

    ``count`` is a persistent int64 buffer holding a 0-d tensor. It counts in training and
    evaluation mode alike; ``reset()`` sets it back to zero.
    """

    module: Module
    count: Tensor

    def __init__(self, module: Module) -> None:
        super().__init__()
        self.register_buffer("count", zeros((), dtype=dtypes.int64))
        self.module = module

    def forward(self, input: Tensor) -> Any:
        """Add the number of samples in ``input`` to ``count``, then return ``module(input)``."""
        with grad_mode.no_grad():
            self.count.add_(int(input.shape[0]) if input.dim() > 1 else 1)
        return self.module(input)

    def reset(self) -> None:
        """Forget every event seen (``count`` back to 0, in place)."""
        with grad_mode.no_grad():
            self.count.zero_()
