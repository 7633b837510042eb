"""The engine's one device, the CPU: how a device argument is read, where a tensor may go, and
pinned memory.

:class:`device` (``torch.device``) reads its argument with :func:`parse_device` (any device
torch can name can be made, as in torch); every tensor's is :data:`CPU` (``Tensor.device``, core's
seam ``ownership.core.tensor_metadata.CPU``, given by ``ownership.installation.install()``); the factories, ``to`` and ``Module.to`` place
tensors through :func:`check_device` (through :mod:`ownership.ops.checks`), and ``save_on_cpu`` checks
its pinned copy with :func:`pin_memory`. The engine answers as torch's CPU build on a machine
without an accelerator.

>>> check_device("cpu:0", "zeros")
>>> check_device("cuda", "zeros")
Traceback (most recent call last):
...
AssertionError: Torch not compiled with CUDA enabled
>>> check_device("mps", "zeros")
Traceback (most recent call last):
...
NotImplementedError: ownership does not implement the 'mps' device; it covers the CPU only (device='cpu')
"""

from __future__ import annotations

import builtins
import re
from typing import Any

from ownership.core.dtypes import missing

__all__ = ["CPU", "DEVICE_TYPES", "Device", "check_device", "device", "parse_device", "pin_memory"]

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
    engine's tensors may go is :func:`check_device`'s rule.

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


def check_device(arg: Any, function: str) -> None:
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


def _invalid_device_arguments(type: Any, index: Any) -> TypeError:
    """torch's error for ``device(...)`` arguments that fit neither of its signatures."""
    if isinstance(type, device):
        return TypeError("device(): argument 'type' (position 1) must be str, not torch.device")
    return TypeError(
        f"device() received an invalid combination of arguments - got "
        f"({builtins.type(type).__name__}), but expected one of:\n"
        " * (torch.device device)\n"
        "      didn't match because some of the arguments have invalid types: "
        f"(!{builtins.type(type).__name__}!)\n"
        " * (str type, int index = -1)\n"
    )


class device:
    """``torch.device``: where a tensor lives. Any device torch can name can be made, as in torch
    (``device("cuda")`` is a name; ``ownership.ops.devices.parse_device`` is the reading); the
    engine's tensors live on the CPU only, and placing one elsewhere gets torch's error on a
    machine without that device (``ownership.ops.devices.check_device``).

    >>> device("cpu"), device("cpu", 1), str(device("cpu:0")), device("cuda", 0)
    (device(type='cpu'), device(type='cpu', index=1), 'cpu:0', device(type='cuda', index=0))
    """

    __slots__ = ("index", "type")
    type: str
    index: int | None

    def __init__(self, type: Any, index: Any = None) -> None:
        if isinstance(type, device) and index is None:
            type, index = type.type, type.index
        elif not isinstance(type, str | int) or isinstance(type, bool):
            raise _invalid_device_arguments(type, index)
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            got = builtins.type(index).__name__
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not {got}")
        if isinstance(type, str) and index is not None and ":" in type:
            raise RuntimeError(
                "type (string) must not include an index because index was passed explicitly: "
                f"{type}"
            )
        kind, number = parse_device(type)
        if isinstance(index, int) and index < 0:
            raise RuntimeError("Device index must not be negative")
        object.__setattr__(self, "type", kind)
        object.__setattr__(self, "index", number if number is not None else index)

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return type(other).__name__ == "device" and str(other) == str(self)

    def __hash__(self) -> int:
        return hash(str(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (str(self),))


Device = device  # the engine's older name


CPU = object.__new__(device)  # every tensor's device (made without the checks)
object.__setattr__(CPU, "type", "cpu")
object.__setattr__(CPU, "index", None)
