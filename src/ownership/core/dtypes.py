"""Data types: the dtype objects (printed as torch's), the default dtype, torch's type promotion
and the engine's one error for a part of torch it lacks (:func:`missing`).

>>> float32, int64.is_floating_point, promote_types(int64, float32)
(torch.float32, False, torch.float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

DTYPES = "float32, float64, int32, int64 and bool"
"""The dtypes the engine keeps."""


def missing(what: str, covers: str) -> NotImplementedError:
    """The engine's one error for a part of torch it lacks: ``what`` is missing, ``covers`` is
    what it has instead (raise it).

    >>> str(missing("the 'cuda' device", "the CPU only (device='cpu')"))
    "ownership does not implement the 'cuda' device; it covers the CPU only (device='cpu')"
    """
    return NotImplementedError(f"ownership does not implement {what}; it covers {covers}")


class dtype:
    """A tensor element type: a numpy dtype plus torch's names for it."""

    __slots__ = ("_rank", "is_floating_point", "itemsize", "legacy", "name", "np", "short")

    def __init__(self, name: str, np_dtype: Any, legacy: str, short: str, rank: int) -> None:
        self.name = name
        self.np: np.dtype[Any] = np.dtype(np_dtype)
        self.legacy = legacy
        self.short = short
        self._rank = rank
        self.is_floating_point: bool = self.np.kind == "f"
        self.itemsize = self.np.itemsize

    @property
    def is_signed(self) -> bool:
        """Whether values can be negative (as torch's ``dtype.is_signed``)."""
        return self.np.kind in "fi"

    @property
    def error_name(self) -> str:
        """The type name torch's errors print for this dtype (``torch.FloatTensor``...)."""
        return "CPUBoolType" if self.name == "bool" else f"torch.{self.legacy}"

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


bool_ = dtype("bool", np.bool_, "BoolTensor", "Bool", 0)
int32 = dtype("int32", np.int32, "IntTensor", "Int", 1)
int64 = dtype("int64", np.int64, "LongTensor", "Long", 2)
float32 = dtype("float32", np.float32, "FloatTensor", "Float", 3)
float64 = dtype("float64", np.float64, "DoubleTensor", "Double", 4)

ALL: tuple[dtype, ...] = (bool_, int32, int64, float32, float64)
uint8 = dtype("uint8", np.uint8, "ByteTensor", "Byte", 1)  # only a generator's state's bytes
_BY_NP: dict[Any, dtype] = {d.np: d for d in ALL}
_default: list[dtype] = [float32]


def get_default_dtype() -> dtype:
    """The dtype of a tensor made from Python floats (``float32`` unless changed)."""
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Change the default floating dtype (only ``float32`` or ``float64``)."""
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


_TORCH_ONLY = frozenset(
    ("uint8", "int8", "int16", "uint16", "uint32", "uint64", "float16", "complex64", "complex128")
)
"""The numpy dtypes torch converts and the engine does not keep."""


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The dtype for a numpy dtype (:func:`missing` or torch's ``TypeError`` for the others)."""
    found = _BY_NP.get(np_dtype) or _BY_NP.get(d := np.dtype(np_dtype))
    if found is not None:
        return found
    if d.name in _TORCH_ONLY:
        raise missing(f"torch.{d.name} (an array of numpy.{d.name})", f"the dtypes {DTYPES}")
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{d.type.__name__}. The only supported types "
        "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
        "uint64, uint32, uint16, uint8, and bool."
    )


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types for the supported dtypes: the wider category and size wins."""
    return a if a._rank >= b._rank else b


def _category(d: dtype) -> int:
    return 2 if d.is_floating_point else (0 if d is bool_ else 1)


def can_cast(src: dtype, dst: dtype) -> bool:
    """torch.can_cast: no float to int, no int/float to bool."""
    return _category(src) <= _category(dst)
