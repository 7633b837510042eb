"""The engine's one device, the CPU: the check of a device argument and of pinned memory.

:class:`~ownership.tensor_metadata.device` checks its type here when made, the factories and
``to`` their ``device=`` (through :mod:`ownership.ops.checks`), and ``save_on_cpu`` its pinned
copy: torch's errors for what torch cannot read, ``NotImplementedError`` for a device type the
engine lacks.

>>> device("cpu:0")
>>> device("cuda")
Traceback (most recent call last):
...
NotImplementedError: ownership does not implement the 'cuda' device; it covers the CPU only (device='cpu')
"""

from __future__ import annotations

import re
from typing import Any

from ownership.scope import missing

__all__ = ["device", "pin_memory"]

_DEVICE_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, "
    "mps, meta, hpu, mtia, privateuseone"
)


def device(arg: Any) -> None:
    """The one check of a device argument (``device=``, ``.to(device)``): ``None``, ``'cpu'``,
    ``'cpu:N'`` or a device of type ``'cpu'`` pass (the engine computes on the CPU only);
    torch's errors for what torch cannot read (``'a'``, ``'cpu:x'``, a negative index, an
    index, which names an accelerator); ``NotImplementedError`` for a device type torch knows
    and the engine lacks (``'cuda'``, ``'mps'``, ``'meta'`` ...)."""
    if arg is None:
        return
    if isinstance(arg, int) and not isinstance(arg, bool):
        if arg < 0:
            raise RuntimeError("Device index must not be negative")
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if isinstance(arg, str):
        match = _DEVICE_STRING.fullmatch(arg)
        if match is None:
            raise RuntimeError(f"Invalid device string: '{arg}'")
        kind = match.group(1)
        if kind not in _DEVICE_TYPES.split(", "):
            raise RuntimeError(
                f"Expected one of {_DEVICE_TYPES} device type at start of device string: {arg}"
            )
    else:
        kind = str(getattr(arg, "type", ""))
    if kind != "cpu":
        raise missing(f"the '{kind}' device", "the CPU only (device='cpu')")


def pin_memory(pin: Any) -> None:
    """torch's refusal of ``pin_memory=True`` on a machine without an accelerator (pinned
    memory is page-locked host memory for fast copies to a GPU)."""
    if pin:
        raise RuntimeError(
            "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
            "allocator is available on this system."
        )


_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")
