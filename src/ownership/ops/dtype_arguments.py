"""How torch's parser reads a ``torch.dtype`` argument: a dtype, or one of Python's scalar types.

``dtype=float`` is float64 (not the default dtype), ``int`` int64, ``bool`` bool; ``complex`` is
out of the engine's scope; anything else (a string, a numpy dtype) is torch's ``TypeError``.
:func:`dtype_arg` reads the lone ``dtype=`` keyword of a factory of one signature; the parser
(:mod:`ownership.overload`, parity) applies :func:`is_argument` and :func:`from_argument` to each
``torch.dtype`` parameter it binds.
"""

from __future__ import annotations

from typing import Any

from ownership.core import dtypes
from ownership.core.dtypes import dtype as DType
from ownership.core.dtypes import missing
from ownership.ops.type_names import tp_name

__all__ = ["dtype_arg", "from_argument", "is_argument"]


_PYTHON_TYPES: dict[Any, DType] = {float: dtypes.float64, int: dtypes.int64, bool: dtypes.bool_}
"""The dtype torch reads a Python scalar type as, given for a dtype (``dtype=float``)."""


def is_argument(obj: Any) -> bool:
    """torch's check of a ``torch.dtype`` argument: a dtype, or one of Python's scalar types
    ``float``, ``int``, ``bool``, ``complex`` (never a string, a numpy dtype or a numpy type)."""
    return isinstance(obj, DType) or any(obj is t for t in (float, int, bool, complex))


def from_argument(obj: Any) -> DType:
    """The dtype an argument that :func:`is_argument` accepted names: Python's ``float`` is
    float64 (not the default dtype), ``int`` int64, ``bool`` bool; ``complex``, the scope's
    error."""
    if isinstance(obj, DType):
        return obj
    if obj is complex:
        raise missing("torch.complex128 (dtype=complex)", dtypes.DTYPES)
    return _PYTHON_TYPES[obj]


def dtype_arg(function: str, value: Any) -> DType | None:
    """The keyword ``dtype=`` of ``function``, a factory of one signature, as torch's parser
    reads it (None: not given): a dtype or a Python scalar type (:func:`is_argument`); anything
    else, torch's ``TypeError``. (Functions of several signatures check it with their parser,
    whose ``torch.dtype`` parameters follow the same rule.)

    >>> dtype_arg("zeros", float), dtype_arg("zeros", None)
    (torch.float64, None)
    >>> dtype_arg("zeros", "float")
    Traceback (most recent call last):
    ...
    TypeError: zeros(): argument 'dtype' must be torch.dtype, not str
    """
    if value is None:
        return None
    if not is_argument(value):
        raise TypeError(f"{function}(): argument 'dtype' must be torch.dtype, not {tp_name(value)}")
    return from_argument(value)
