"""Tensor operators: arithmetic, comparisons, ``~ & |``, indexing, and ``+= -= *= /=`` in place.

Each forwards to the op of the same name in :data:`~ownership.op_registry.OPS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ownership.op_registry import OPS, op

if TYPE_CHECKING:
    from ownership._tensor import Tensor

_NUMBERS = (int, float, complex, np.number, np.bool_, np.ndarray)


def _takes(other: Any) -> bool:
    """Whether a Python operator takes ``other``: a tensor, a number or a numpy array (as torch),
    or a torch tensor (read through numpy, as a constant).

    Anything else (a list, ``None``, a string) makes the operator return ``NotImplemented``, so
    Python answers as it does for torch: ``t == None`` is False, ``t + None`` a TypeError.
    """
    return isinstance(other, _NUMBERS) or hasattr(other, "_storage") or hasattr(other, "__array__")


class TensorOperators:
    """The Python operators of :class:`~ownership._tensor.Tensor`."""

    __slots__ = ()

    def __add__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("add")(self, other)

    def __radd__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("add")(self, other)

    def __sub__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("sub")(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("rsub")(self, other)

    def __mul__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("mul")(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("mul")(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("div")(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("rdiv")(self, other)

    def __pow__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("pow")(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("rpow")(self, other)

    def __matmul__(self, other: Tensor) -> Tensor:
        if not hasattr(other, "_storage"):
            return NotImplemented
        return op("matmul")(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return op("matmul")(other, self)

    def __neg__(self) -> Tensor:
        return op("neg")(self)

    def __pos__(self) -> Tensor:
        return cast("Tensor", self)

    def __abs__(self) -> Tensor:
        return op("abs")(self)

    def __iadd__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("add_")(self, other)

    def __isub__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("sub_")(self, other)

    def __imul__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("mul_")(self, other)

    def __itruediv__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("div_")(self, other)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not _takes(other):
            return NotImplemented
        return op("eq")(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not _takes(other):
            return NotImplemented
        return op("ne")(self, other)

    def __lt__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("lt")(self, other)

    def __le__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("le")(self, other)

    def __gt__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("gt")(self, other)

    def __ge__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("ge")(self, other)

    def __invert__(self) -> Tensor:
        return op("logical_not")(self)

    def __and__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("logical_and")(self, other)

    def __or__(self, other: Any) -> Tensor:
        if not _takes(other):
            return NotImplemented
        return op("logical_or")(self, other)

    def __getitem__(self, index: Any) -> Tensor:
        return op("getitem")(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        OPS["setitem"](self, index, value)
