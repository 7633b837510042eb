"""The graph: nodes, saved tensors, the view history, the one backward loop and its hooks.

The machinery behind ``torch.autograd``; the public face a learner imports is
:mod:`ownership.autograd` (``grad``, ``backward``, ``Function``, ``graph``, ...), which imports
from here.
"""
