"""Optimizers: the owners that mutate a model's parameters, in place, under no_grad.

- :class:`Optimizer`: parameter groups, per-parameter state, ``zero_grad`` and ``step``.
- :class:`SGD`: stochastic gradient descent with momentum, Nesterov and weight decay.
"""

from ownership.optim.optimizer import Optimizer
from ownership.optim.sgd import SGD

__all__ = ["SGD", "Optimizer"]
