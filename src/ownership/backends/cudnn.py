"""``torch.backends.cudnn``: NVIDIA's cuDNN library, absent on the CPU. Its switches keep the
values a script sets, as in torch, and change nothing: the engine's kernels are deterministic.

>>> from ownership.backends import cudnn
>>> cudnn.deterministic, cudnn.benchmark, cudnn.enabled
(False, False, True)
"""

from __future__ import annotations

from ownership.scope import module_getattr

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "version"]

enabled = True
"""Whether cuDNN may be used (torch's default: True)."""
benchmark = False
"""Whether cuDNN may time its algorithms and pick the fastest (torch's default: False)."""
deterministic = False
"""Whether cuDNN must pick deterministic algorithms (torch's default: False)."""
allow_tf32 = True
"""Whether cuDNN may use TensorFloat-32 (torch's default: True)."""


def is_available() -> bool:
    """Whether cuDNN can be used: never, without CUDA."""
    return False


def version() -> None:
    """cuDNN's version: ``None``, as torch answers without it."""
    return None


__getattr__ = module_getattr("torch.backends.cudnn", __name__)
