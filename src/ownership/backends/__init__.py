"""``torch.backends``, the two parts a training script asks: whether Apple's MPS device is
there (``torch.backends.mps.is_available()``: no) and cuDNN's switches, which a seeding recipe
sets (``torch.backends.cudnn.deterministic = True``) and which change nothing on the CPU.

>>> import ownership as torch
>>> torch.backends.mps.is_available(), torch.backends.cudnn.is_available()
(False, False)
"""

from __future__ import annotations

from ownership.backends import cudnn, mps
from ownership.scope import module_getattr

__all__ = ["cudnn", "mps"]

__getattr__ = module_getattr("torch.backends", __name__)
