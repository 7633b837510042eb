"""``torch.cuda`` as torch's CPU build answers it: no CUDA device, so a program that asks
(``"cuda" if torch.cuda.is_available() else "cpu"``) runs on the CPU, as under torch on a
machine without a GPU.

Seeding is accepted and does nothing (torch queues it until CUDA starts, which it never does
here); what needs a device gets torch's ``AssertionError``; any other name of ``torch.cuda``,
the scope's error (``ownership.scope``).

>>> import ownership as torch
>>> torch.cuda.is_available(), torch.cuda.device_count()
(False, 0)
>>> torch.cuda.current_device()
Traceback (most recent call last):
...
AssertionError: Torch not compiled with CUDA enabled
"""

from __future__ import annotations

from ownership.scope import module_getattr

__all__ = [
    "current_device",
    "device_count",
    "is_available",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "synchronize",
]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def is_available() -> bool:
    """Whether a CUDA device can be used: never, on the engine (torch's CPU build says the same)."""
    return False


def device_count() -> int:
    """How many CUDA devices there are: none."""
    return 0


def is_initialized() -> bool:
    """Whether CUDA has started: never."""
    return False


def manual_seed(seed: int) -> None:
    """Seed the current CUDA device's generator: accepted, with nothing to seed (as torch's
    CPU build, which queues the call until CUDA starts)."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator: accepted, with nothing to seed."""
    int(seed)


def current_device() -> int:
    """The current CUDA device: torch's ``AssertionError``, as there is none."""
    raise AssertionError(_NOT_COMPILED)


def synchronize(device: object = None) -> None:
    """Wait for the CUDA device: torch's ``AssertionError``, as there is none."""
    raise AssertionError(_NOT_COMPILED)


__getattr__ = module_getattr("torch.cuda", __name__)
