"""Tensor operators: arithmetic (``//`` and ``%`` too), comparisons, ``~ & | ^``, indexing, and
``+= -= *= /= //= %= **= &= |= ^=`` in place.

Each forwards to its op through :data:`~ownership.op_registry.ops` (``~x`` is ``invert``).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ownership import op_registry
from ownership.invalid_arguments import is_torch_tensor

if TYPE_CHECKING:
    from ownership._tensor import Tensor
    from ownership.op_table import OpTable

ops: OpTable[Tensor] = op_registry.ops

_NUMBERS = (int, float, complex, np.number, np.bool_)

_ARITHMETIC = (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
)


def _operator(name: str) -> Callable[[Any, Any], Any]:
    return cast(
        "Callable[[Any, Any], Any]", getattr(operator, name + "_" * (name in ("and", "or")))
    )


# each operator's name -> (Python's operator, whether the tensor is its right operand)
_OPERATORS: dict[str, tuple[Callable[[Any, Any], Any], bool]] = {
    **{f"__{n}__": (_operator(n), False) for n in _ARITHMETIC},
    **{f"__r{n}__": (_operator(n), True) for n in _ARITHMETIC},
    **{f"__i{n}__": (_operator("i" + n), False) for n in _ARITHMETIC},
    **{f"__{n}__": (_operator(n), False) for n in ("eq", "ne", "lt", "le", "gt", "ge")},
}


# what an operator returns for an operand it does not take: Python then asks the other operand
_DECLINED = cast("Tensor", NotImplemented)


def _foreign(tensor: Any, other: Any, name: str) -> Tensor:
    """What operator ``name`` gives for an operand that is no tensor of the engine and no number.

    As torch: a numpy array is refused (``NotImplemented``), so Python asks numpy's reflected
    operator, which computes over the tensor's ``__array__`` (refused for a tensor that requires
    grad) and wraps the result back through ``__array_wrap__`` (``x + a``, ``x @ a``, and
    ``x += a``, which makes a new tensor); numpy defers its own forward operators and its
    comparisons to a tensor (``__array_priority__``), so ``a + x``, ``a * x`` and ``x < a`` are
    Python's TypeError; ``a / x`` is torch's ``x.reciprocal() * a``. Only ``==`` reads the array
    as a tensor (torch's ``x == a``, Python's identity for an array of strings or objects); every
    other operand (a list, None) gets Python's own answer.

    A torch tensor is answered as the same program with its numpy array in its place, a
    TypeError naming it ``torch.Tensor`` where Python names ``numpy.ndarray``.
    """
    if isinstance(other, np.ndarray):
        if name == "__rtruediv__":  # torch's ``a / x`` is ``x.reciprocal() * a``
            return cast("Tensor", tensor.reciprocal() * other)
        if name != "__eq__" or other.dtype.kind not in "biufc":  # strings, objects: no tensor
            return _DECLINED
        return ops.eq(tensor, other)
    if not is_torch_tensor(other):
        return _DECLINED
    if name == "__eq__":
        return ops.eq(tensor, other)
    op, reflected = _OPERATORS[name]
    array = np.asarray(other)  # torch's own refusal for a tensor that requires grad
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = op(array, tensor) if reflected else op(tensor, array)
    except TypeError as error:
        raise TypeError(str(error).replace("numpy.ndarray", "torch.Tensor")) from None
    for report in caught:  # numpy's warnings, at the user's line as with a numpy array
        warnings.warn(report.message, report.category, stacklevel=3)
    return cast("Tensor", result)


class TensorOperators:
    """The Python operators of :class:`~ownership._tensor.Tensor`.

    Each takes a tensor of the engine or a number (``isinstance(other, _TAKEN)``) and leaves
    any other operand to :func:`_foreign`.
    """

    __slots__ = ()

    def __add__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__add__")
        return ops.add(self, other)

    def __radd__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__radd__")
        return ops.add(self, other)

    def __sub__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__sub__")
        return ops.sub(self, other)

    def __rsub__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rsub__")
        return ops.rsub(self, other)

    def __mul__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__mul__")
        return ops.mul(self, other)

    def __rmul__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rmul__")
        return ops.mul(self, other)

    def __truediv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__truediv__")
        return ops.div(self, other)

    def __rtruediv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rtruediv__")
        return ops.rdiv(self, other)

    def __floordiv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__floordiv__")
        return ops.floor_divide(self, other)

    def __rfloordiv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rfloordiv__")
        return ops.rfloordiv(self, other)

    def __mod__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__mod__")
        return ops.remainder(self, other)

    def __rmod__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rmod__")
        return ops.rremainder(self, other)

    def __pow__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__pow__")
        return ops.pow(self, other)

    def __rpow__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rpow__")
        return ops.rpow(self, other)

    def __matmul__(self: Any, other: Tensor) -> Tensor:
        if not isinstance(other, TensorOperators):
            return _foreign(self, other, "__matmul__")
        return ops.matmul(self, other)

    def __rmatmul__(self: Any, other: Tensor) -> Tensor:
        if not isinstance(other, TensorOperators):
            return _foreign(self, other, "__rmatmul__")
        return ops.matmul(other, self)

    def __neg__(self: Any) -> Tensor:
        return ops.neg(self)

    def __pos__(self) -> Tensor:
        return cast("Tensor", self)

    def __abs__(self: Any) -> Tensor:
        return ops.abs(self)

    def __iadd__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__iadd__")
        return ops.add_(self, other)

    def __isub__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__isub__")
        return ops.sub_(self, other)

    def __imul__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__imul__")
        return ops.mul_(self, other)

    def __itruediv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__itruediv__")
        return ops.div_(self, other)

    def __ifloordiv__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__ifloordiv__")
        return ops.floor_divide_(self, other)

    def __imod__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__imod__")
        return ops.remainder_(self, other)

    def __ipow__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__ipow__")
        return ops.pow_(self, other)

    def __iand__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__iand__")
        return ops.bitwise_and_(self, other)

    def __ior__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__ior__")
        return ops.bitwise_or_(self, other)

    def __ixor__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__ixor__")
        return ops.bitwise_xor_(self, other)

    def __eq__(self: Any, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__eq__")
        return ops.eq(self, other)

    def __ne__(self: Any, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__ne__")
        return ops.ne(self, other)

    def __lt__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__lt__")
        return ops.lt(self, other)

    def __le__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__le__")
        return ops.le(self, other)

    def __gt__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__gt__")
        return ops.gt(self, other)

    def __ge__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__ge__")
        return ops.ge(self, other)

    def __invert__(self: Any) -> Tensor:
        return ops.invert(self)

    def __and__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__and__")
        return ops.bitwise_and(self, other)

    def __or__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__or__")
        return ops.bitwise_or(self, other)

    def __xor__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__xor__")
        return ops.bitwise_xor(self, other)

    # reflected: ``2 & t`` is ``t & 2`` (each op is commutative)
    def __rand__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rand__")
        return ops.bitwise_and(self, other)

    def __ror__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__ror__")
        return ops.bitwise_or(self, other)

    def __rxor__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rxor__")
        return ops.bitwise_xor(self, other)

    def __lshift__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__lshift__")
        return ops.bitwise_left_shift(self, other)

    def __rshift__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rshift__")
        return ops.bitwise_right_shift(self, other)

    def __rlshift__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rlshift__")
        return ops.shift_of_number(other, self, False)

    def __rrshift__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rrshift__")
        return ops.shift_of_number(other, self, True)

    def __ilshift__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__ilshift__")
        return ops.bitwise_left_shift_(self, other)

    def __irshift__(self: Any, other: Any) -> Tensor:
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__irshift__")
        return ops.bitwise_right_shift_(self, other)

    def __getitem__(self: Any, index: Any) -> Tensor:
        return ops.getitem(self, index)

    def __setitem__(self: Any, index: Any, value: Any) -> None:
        ops.setitem(self, index, value)


# what the operators take without asking further: an ownership tensor (this class's subclass),
# then the numbers
_TAKEN = (TensorOperators, *_NUMBERS)
