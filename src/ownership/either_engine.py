"""Whether an object is a tensor of either engine, ``torch`` or ``ownership``, by duck typing.

The tools that accept both engines' objects (:mod:`ownership.compare`, :mod:`ownership.auditing`,
:mod:`ownership.pictures`) ask this one question and never import torch. It sits below every other
layer: it imports nothing.

>>> import numpy as np
>>> import ownership
>>> is_either_tensor(ownership.zeros(2)), is_either_tensor(ownership.nn.Parameter(ownership.zeros(2)))
(True, True)
>>> is_either_tensor(np.zeros(2)), is_either_tensor(ownership.nn.Linear(1, 1)), is_either_tensor(2.0)
(False, False, False)
"""

from __future__ import annotations

__all__ = ["is_either_tensor"]

# What both engines' tensors have and nothing else the tools meet does: a numpy array has no
# ``is_inference``, nor has a module. (Not ``_version``: an inference tensor raises on reading it.)
_TENSOR_ATTRIBUTES = ("is_inference", "shape", "dtype", "requires_grad", "detach")


def is_either_tensor(obj: object) -> bool:
    """Whether ``obj`` is a ``torch`` or an ``ownership`` tensor (a ``Parameter`` included)."""
    return all(hasattr(obj, name) for name in _TENSOR_ATTRIBUTES)
