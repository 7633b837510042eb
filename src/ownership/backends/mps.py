"""``torch.backends.mps``: Apple's Metal device, never there on the engine (nor in torch's
build for Linux)."""

from __future__ import annotations

from ownership.scope import module_getattr

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Whether the MPS device can be used: never."""
    return False


def is_built() -> bool:
    """Whether this build supports MPS: no."""
    return False


__getattr__ = module_getattr("torch.backends.mps", __name__)
