"""Optimizers: the owners that mutate a model's parameters, in place, under no_grad.

- :class:`Optimizer`: parameter groups, per-parameter state, ``zero_grad`` and ``step``.
- :class:`SGD`: stochastic gradient descent with momentum, Nesterov and weight decay.
- :class:`Adam`: adaptive moments (``exp_avg``, ``exp_avg_sq``) per parameter.
- :class:`AdamW`: Adam whose weight decay shrinks the parameter, not the moments.
- :class:`RMSprop`: steps divided by a running root-mean-square of the gradient.
- :class:`Adagrad`: steps divided by the root of the sum of all squared gradients.
- ``lr_scheduler``: the schedules that rewrite each group's ``lr`` as training goes.
"""

from ownership.optim import lr_scheduler as lr_scheduler
from ownership.optim.adagrad import Adagrad
from ownership.optim.adam import Adam
from ownership.optim.adamw import AdamW
from ownership.optim.optimizer import Optimizer
from ownership.optim.rmsprop import RMSprop
from ownership.optim.sgd import SGD
from ownership.scope import module_getattr

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop"]

# a public name of torch.optim that the engine lacks: the scope error (ownership.scope)
__getattr__ = module_getattr("torch.optim", __name__)
