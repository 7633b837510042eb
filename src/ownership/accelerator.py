"""``torch.accelerator`` as torch's CPU build answers it: no accelerator, so device-agnostic code
(``torch.accelerator.current_accelerator() or "cpu"``) runs on the CPU.

>>> import ownership as torch
>>> torch.accelerator.is_available(), torch.accelerator.current_accelerator()
(False, None)
"""

from __future__ import annotations

from typing import Any

from ownership.scope import module_getattr

__all__ = ["current_accelerator", "device_count", "is_available"]


def is_available() -> bool:
    """Whether an accelerator (CUDA, MPS, XPU ...) can be used: never, on the engine."""
    return False


def device_count() -> int:
    """How many accelerator devices there are: none."""
    return 0


def current_accelerator(check_available: bool = False) -> Any:
    """The accelerator's device, or ``None`` when there is none (always, on the engine)."""
    return None


__getattr__ = module_getattr("torch.accelerator", __name__)
