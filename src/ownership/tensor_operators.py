"""Tensor operators: arithmetic (``//`` and ``%`` too), comparisons, ``~ & | ^``, indexing, and
``+= -= *= /= //= %= **= &= |= ^=`` in place.

Each forwards to its op through :data:`~ownership.op_registry.ops` (``~x`` is ``invert``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ownership import op_registry
from ownership.storage import is_engine_tensor

if TYPE_CHECKING:
    from ownership._tensor import Tensor
    from ownership.op_table import OpTable

ops: OpTable[Tensor] = op_registry.ops

_NUMBERS = (int, float, complex, np.number, np.bool_, np.ndarray)


def _takes(other: Any) -> bool:
    """Whether a Python operator takes ``other``: a tensor, a number or a numpy array (as torch),
    or a torch tensor (read through numpy, as a constant).

    Anything else (a list, ``None``, a string) makes the operator return ``NotImplemented``, so
    Python answers as it does for torch: ``t == None`` is False, ``t + None`` a TypeError.
    """
    return isinstance(other, _TAKEN) or is_engine_tensor(other) or hasattr(other, "__array__")


class TensorOperators:
    """The Python operators of :class:`~ownership._tensor.Tensor`.

    Each asks :func:`_takes` only after its first, commonest answer (``isinstance(other,
    _TAKEN)``: a tensor or a number) failed: one call fewer per operator.
    """

    __slots__ = ()

    def __add__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.add(self, other)

    def __radd__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.add(self, other)

    def __sub__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.sub(self, other)

    def __rsub__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.rsub(self, other)

    def __mul__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.mul(self, other)

    def __rmul__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.mul(self, other)

    def __truediv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.div(self, other)

    def __rtruediv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.rdiv(self, other)

    def __floordiv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.floor_divide(self, other)

    def __rfloordiv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.rfloordiv(self, other)

    def __mod__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.remainder(self, other)

    def __rmod__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.rremainder(self, other)

    def __pow__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.pow(self, other)

    def __rpow__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.rpow(self, other)

    def __matmul__(self: Any, other: Tensor) -> Tensor:
        if not isinstance(other, TensorOperators) and not is_engine_tensor(other):
            return NotImplemented
        return ops.matmul(self, other)

    def __rmatmul__(self: Any, other: Tensor) -> Tensor:
        # reached for an operand that is no tensor of this engine (``ndarray @ x``): refused as
        # torch refuses it, Python's "unsupported operand type(s) for @"
        if not isinstance(other, TensorOperators) and not is_engine_tensor(other):
            return NotImplemented
        return ops.matmul(other, self)

    def __neg__(self: Any) -> Tensor:
        return ops.neg(self)

    def __pos__(self) -> Tensor:
        return cast("Tensor", self)

    def __abs__(self: Any) -> Tensor:
        return ops.abs(self)

    def __iadd__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.add_(self, other)

    def __isub__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.sub_(self, other)

    def __imul__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.mul_(self, other)

    def __itruediv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.div_(self, other)

    def __ifloordiv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.floor_divide_(self, other)

    def __imod__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.remainder_(self, other)

    def __ipow__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.pow_(self, other)

    def __iand__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.bitwise_and_(self, other)

    def __ior__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.bitwise_or_(self, other)

    def __ixor__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.bitwise_xor_(self, other)

    def __eq__(self: Any, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.eq(self, other)

    def __ne__(self: Any, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.ne(self, other)

    def __lt__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.lt(self, other)

    def __le__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.le(self, other)

    def __gt__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.gt(self, other)

    def __ge__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.ge(self, other)

    def __invert__(self: Any) -> Tensor:
        return ops.invert(self)

    def __and__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.bitwise_and(self, other)

    def __or__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.bitwise_or(self, other)

    def __xor__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN) and not _takes(other):
            return NotImplemented
        return ops.bitwise_xor(self, other)

    # reflected: ``2 & t`` is ``t & 2`` (each op is commutative)
    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __getitem__(self: Any, index: Any) -> Tensor:
        return ops.getitem(self, index)

    def __setitem__(self: Any, index: Any, value: Any) -> None:
        ops.setitem(self, index, value)


# what the operators take without asking further: an ownership tensor (this class's subclass),
# then the numbers and numpy arrays
_TAKEN = (TensorOperators, *_NUMBERS)
