"""``torch.autograd.graph``, the public face: saved-tensor hooks, ``Node``, version bumps.

What a learner reaches as ``torch.autograd.graph``; the machinery is in
:mod:`ownership.core.autograd.graph` (the hooks' stack the saved tensors read) and
:mod:`ownership.core.autograd.node` (``Node``). A public name of torch's module that the engine
lacks raises the scope error (:mod:`ownership.scope`).

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> isinstance(x.exp().grad_fn, Node)
True
"""

from __future__ import annotations

from ownership.core.autograd.graph import (
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    increment_version,
    save_on_cpu,
    saved_tensors_hooks,
)
from ownership.core.autograd.node import Node
from ownership.scope import module_getattr

__all__ = [
    "Node",
    "allow_mutation_on_saved_tensors",
    "disable_saved_tensors_hooks",
    "increment_version",
    "save_on_cpu",
    "saved_tensors_hooks",
]

__getattr__ = module_getattr("torch.autograd.graph", __name__)  # a name torch has: the scope error
