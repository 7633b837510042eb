"""Optimizers: the owners that mutate a model's parameters, in place, under no_grad.

- :class:`Optimizer`: parameter groups, per-parameter state, ``zero_grad`` and ``step``.
- :class:`SGD`: stochastic gradient descent with momentum, Nesterov and weight decay.
- :class:`Adam`: adaptive moments (``exp_avg``, ``exp_avg_sq``) per parameter.
"""

from ownership.optim.adam import Adam
from ownership.optim.optimizer import Optimizer
from ownership.optim.sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer"]
