"""The engine's one device, the CPU: how a device argument is read, where a tensor may go, and
pinned memory.

:class:`~ownership.core.tensor_metadata.device` reads its argument with :func:`parse_device` (any
device torch can name can be made, as in torch); the factories, ``to`` and ``Module.to`` place
tensors through :func:`device` (through :mod:`ownership.ops.checks`), and ``save_on_cpu`` checks
its pinned copy with :func:`pin_memory`. The engine answers as torch's CPU build on a machine
without an accelerator.

>>> device("cpu:0", "zeros")
>>> device("cuda", "zeros")
Traceback (most recent call last):
...
AssertionError: Torch not compiled with CUDA enabled
>>> device("mps", "zeros")
Traceback (most recent call last):
...
NotImplementedError: ownership does not implement the 'mps' device; it covers the CPU only (device='cpu')
"""

from __future__ import annotations

import re
from typing import Any

from ownership.core.dtypes import missing

__all__ = ["DEVICE_TYPES", "device", "parse_device", "pin_memory"]

DEVICE_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, "
    "mps, meta, hpu, mtia, privateuseone"
)
"""The device types torch knows, in the order its error lists them."""

_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")

_NOT_COMPILED = {"cuda": "CUDA", "xpu": "XPU"}
"""The accelerators whose placement torch's CPU build refuses with an ``AssertionError``."""


def parse_device(arg: Any) -> tuple[str, int | None]:
    """torch's reading of a device argument (a string, an index, a ``device``) as its type and
    index, with torch's errors for what it cannot read (``'a'``, ``'cpu:x'``, a negative index;
    a bare index names an accelerator, and this machine has none). It places nothing: where the
    engine's tensors may go is :func:`device`'s rule.

    >>> parse_device("cuda:1"), parse_device("cpu")
    (('cuda', 1), ('cpu', None))
    """
    if isinstance(arg, int) and not isinstance(arg, bool):
        if arg < 0:
            raise RuntimeError("Device index must not be negative")
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if not isinstance(arg, str):  # a ``device``
        return str(arg.type), arg.index
    match = _DEVICE_STRING.fullmatch(arg)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{arg}'")
    kind = match.group(1)
    if kind not in DEVICE_TYPES.split(", "):
        raise RuntimeError(
            f"Expected one of {DEVICE_TYPES} device type at start of device string: {arg}"
        )
    return kind, None if match.group(2) is None else int(match.group(2))


def device(arg: Any, function: str) -> None:
    """The one rule of where the engine puts a tensor (``device=``, ``.to(device)``): ``None``,
    ``'cpu'``, ``'cpu:N'`` or a device of type ``'cpu'``. An argument torch cannot read gets
    torch's error (:func:`parse_device`); ``'cuda'`` and ``'xpu'`` get the ``AssertionError`` of
    torch's CPU build, as on a machine without the accelerator; any other device type, the
    scope's ``NotImplementedError`` (``'mps'``, ``'meta'`` ...). A value that is no device at all
    is torch's ``TypeError`` naming ``function``."""
    if arg is None:
        return
    if not (isinstance(arg, str | int) or type(arg).__name__ == "device") or isinstance(arg, bool):
        raise TypeError(
            f"{function}(): argument 'device' must be torch.device, not {type(arg).__name__}"
        )
    kind = parse_device(arg)[0]
    if kind == "cpu":
        return
    if kind in _NOT_COMPILED:
        raise AssertionError(f"Torch not compiled with {_NOT_COMPILED[kind]} enabled")
    raise missing(f"the '{kind}' device", "the CPU only (device='cpu')")


def pin_memory(pin: Any) -> None:
    """torch's refusal of ``pin_memory=True`` on a machine without an accelerator (pinned
    memory is page-locked host memory for fast copies to a GPU)."""
    if pin:
        raise RuntimeError(
            "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
            "allocator is available on this system."
        )
