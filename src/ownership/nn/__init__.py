"""Neural-network modules: who owns which tensor, and who may mutate it.

- :class:`Parameter`: a tensor a module owns for the optimizer to train; :class:`Buffer`: a
  tensor marked so that assigning it to a module registers it as a buffer.
- :class:`Module`: registers parameters, buffers and child modules (one ``__setattr__``
  decides), collects them recursively, saves and loads them (``state_dict``).
- Layers: :class:`Linear`, :class:`Identity`, :class:`Flatten`, :class:`ReLU`,
  :class:`Sigmoid`, :class:`Tanh`, :class:`LeakyReLU`, :class:`Dropout`,
  :class:`Sequential`, the registering containers :class:`ModuleList`, :class:`ModuleDict`,
  :class:`ParameterList` and :class:`ParameterDict`, :class:`BatchNorm1d` (parameters and running-statistic buffers),
  :class:`EventCounter` (the self-test's layer with a running event counter buffer), and the
  losses :class:`MSELoss` and :class:`CrossEntropyLoss`.
- :mod:`ownership.nn.utils`: gradient clipping and parameter/vector conversion;
  :mod:`ownership.nn.init`: in-place initialisers; :mod:`ownership.nn.functional`: the
  stateless functions.
"""

from ownership.nn import functional, init, utils
from ownership.nn.activation import LeakyReLU, ReLU, Sigmoid, Tanh
from ownership.nn.batchnorm import BatchNorm1d
from ownership.nn.container import Sequential
from ownership.nn.dropout import Dropout
from ownership.nn.event_counter import EventCounter
from ownership.nn.flatten import Flatten
from ownership.nn.linear import Identity, Linear
from ownership.nn.loss import CrossEntropyLoss, MSELoss
from ownership.nn.module import Module
from ownership.nn.module_list import ModuleDict, ModuleList
from ownership.nn.parameter import Buffer, Parameter
from ownership.nn.parameter_list import ParameterDict, ParameterList
from ownership.scope import module_getattr

__all__ = [
    "BatchNorm1d",
    "Buffer",
    "CrossEntropyLoss",
    "Dropout",
    "EventCounter",
    "Flatten",
    "Identity",
    "LeakyReLU",
    "Linear",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Tanh",
    "functional",
    "init",
    "utils",
]

# a public name of torch.nn that the engine lacks: the scope error (ownership.scope)
__getattr__ = module_getattr("torch.nn", __name__)
