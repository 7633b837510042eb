"""How torch reads one argument value: an int, a number, a lone tensor; an int read as a C
``long long``; an int64 shown as a saved ``_saved_<name>`` shows it.

General value rules, not torch's argument parser: the ops read an argument with them where they
take it without a signature (``x.copy_(src)``, a node's saved ``dim``), and the parser
(:class:`ownership.arguments.Parser`, parity) applies the same rules to each parameter it binds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership.ops.tensor_conversion import TensorConversion
from ownership.ops.type_names import tp_name

_tensor_class: Any = None
"""The Tensor class, given by :func:`install`."""


def install(tensor_class: type) -> None:
    """Take ``tensor_class`` as the tensor whose 0-d values the checks read. Called once, by
    :func:`ownership.installation.install`."""
    global _tensor_class
    _tensor_class = tensor_class


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is the engine's Tensor (the class :func:`install` gave)."""
    return isinstance(obj, _tensor_class)


def is_int(obj: Any) -> bool:
    """torch's int check: a Python or numpy integer (not a bool), or a 0-d integer tensor."""
    if isinstance(obj, bool | np.bool_):
        return False
    if isinstance(obj, int | np.integer):
        return True
    return (
        is_tensor(obj)
        and obj._data.ndim == 0
        and obj._data.dtype.kind in "iu"
        and not obj.requires_grad
    )


INT64_MIN, INT64_END = -(2**63), 2**63
"""The ints a C ``long long`` holds, ``INT64_MIN <= i < INT64_END``: such an int argument is
read as it is (:func:`int64`)."""


def int64(value: Any) -> int:
    """An int argument read as torch reads it, a C ``long long``: beyond int64 (outside
    :data:`INT64_MIN`, :data:`INT64_END`), torch's ValueError (before the op sees it). A
    Python int is its own ``int()``: read as it is."""
    if type(value) is int:
        out = value
    elif is_tensor(value):  # read by the parser, no call of the program's: no observer sees it
        out = TensorConversion.__int__(value)
    else:
        out = int(value)
    if INT64_MIN <= out < INT64_END:
        return out
    raise ValueError("Overflow when unpacking long long")


def as_saved(value: int) -> int:
    """An int64 argument as a node's ``_saved_<name>`` shows it: read as unsigned 64-bit (torch
    shows ``dim=-1`` as ``2**64 - 1``).

    >>> as_saved(-1) == 2**64 - 1, as_saved(3)
    (True, 3)
    """
    return value & _UINT64


def as_given(saved: int) -> int:
    """The int64 argument a saved int was given as (the inverse of :func:`as_saved`)."""
    return saved - 2**64 if saved > _UINT64 // 2 else saved


_UINT64 = 2**64 - 1


def is_number(obj: Any) -> bool:
    """torch's Number check: a Python or numpy number (bools included), or a 0-d tensor."""
    if isinstance(obj, int | float | complex | np.number | np.bool_):
        return True
    return is_tensor(obj) and obj._data.ndim == 0 and not obj.requires_grad


def tensor_arg(function: str, value: Any, name: str = "input", position: int = 1) -> None:
    """torch's TypeError when a lone ``Tensor`` argument is something else (``torch.sum([1])``)."""
    if not is_tensor(value):
        raise TypeError(
            f"{function}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{tp_name(value)}"
        )


def number_arg(function: str, value: Any, name: str, position: int) -> None:
    """torch's TypeError when a ``Number`` argument is something else (:func:`is_number`)."""
    if not is_number(value):
        raise TypeError(
            f"{function}(): argument '{name}' (position {position}) must be Number, not "
            f"{tp_name(value)}"
        )


def read_in_python(value: Any, attribute: str, call: bool = True) -> None:
    """What the first read of a tensor's ``attribute`` in a function torch writes in Python
    (``input.size()``, ``input.layout``) does to a non-tensor ``value``: Python's own error
    (``'str' object has no attribute 'size'``), or nothing (the caller refuses it next, as
    torch's C++ function does)."""
    if not is_tensor(value):
        found = getattr(value, attribute)
        if call:
            found()
