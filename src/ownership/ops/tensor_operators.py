"""Tensor operators: arithmetic (``//`` and ``%`` too), comparisons, ``~ & | ^``, indexing, and
``+= -= *= /= //= %= **= &= |= ^=`` in place.

Each forwards to its op through :data:`~ownership.core.op_registry.ops` (``~x`` is ``invert``;
the binary operators: :func:`_binary`).
They are no rule of the engine's: each is the op it names, and what an operator does with an
operand that is no tensor and no number (numpy's arrays, torch's tensors) is torch's parity.
Each is declared, written by hand, with the Tensor's methods (:data:`METHODS`, in
:data:`ownership.ops.methods.DECLARED`), and set on :class:`~ownership.core.tensor.Tensor` as
they are (:func:`ownership.core.surface.install`), or, for those torch's function mode sees by
their own name (``x[i]`` as ``__getitem__``), called through the op table under that name
(``ownership.ops.table`` lists them).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ownership.core import op_registry
from ownership.core.tensor import Tensor
from ownership.ops.op_table import OpTable
from ownership.ops.type_names import is_torch_tensor
from ownership.ops.unbound_calls import PYTHON_METHODS, UNBOUND, unbound, unbound_slot

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


# what the operators take without asking further: an ownership tensor, then the numbers
_TAKEN = (Tensor, *_NUMBERS)


def _binary(
    name: str, dunder: str, taken: tuple[type, ...] = _TAKEN
) -> Callable[[Any, Any], Tensor]:
    """The operator ``dunder`` (``__add__``): op ``name`` of the tensor and a tensor or number
    (``taken``), as the op table holds it (quiet: :func:`~ownership.core.op_registry.quiet`);
    any other operand, a missing one too, :func:`_foreign`'s (``NotImplemented``). Called on the
    class without a tensor first, it is refused as torch's C method is
    (:func:`~ownership.ops.unbound_calls.unbound`), or, for one torch writes in Python
    (:data:`~ownership.ops.unbound_calls.PYTHON_METHODS`, ``__rsub__``), answered
    ``NotImplemented`` as torch answers the TypeError of its call."""
    python = PYTHON_METHODS.get(dunder)

    def operator(self: Any = UNBOUND, other: Any = UNBOUND) -> Any:
        if not isinstance(self, Tensor):
            if python is None:
                unbound(dunder, self)
            return NotImplemented
        if not isinstance(other, taken):
            return _foreign(self, other, dunder)
        return getattr(ops, name)(self, other)

    if python is not None:  # torch's ``(self, *args, **kwargs)``: no default for ``self``
        operator.__defaults__ = (UNBOUND,)
    operator.__name__, operator.__module__ = dunder, __name__
    operator.__qualname__ = python or f"TensorOperators.{dunder}"
    operator.__annotations__ = {"other": "Any", "return": "Tensor"}  # as the declared stub types it
    return operator


class TensorOperators:
    """The Python operators of :class:`~ownership.core.tensor.Tensor` (:data:`METHODS`).

    Each takes a tensor of the engine or a number (``isinstance(other, _TAKEN)``) and leaves
    any other operand to :func:`_foreign`.
    """

    __slots__ = ()

    __add__ = _binary("add", "__add__")

    __radd__ = _binary("add", "__radd__")

    __sub__ = _binary("sub", "__sub__")

    __rsub__ = _binary("rsub", "__rsub__")

    __mul__ = _binary("mul", "__mul__")

    __rmul__ = _binary("mul", "__rmul__")

    __truediv__ = _binary("div", "__truediv__")

    __rtruediv__ = _binary("rdiv", "__rtruediv__")

    __floordiv__ = _binary("floor_divide", "__floordiv__")

    __rfloordiv__ = _binary("rfloordiv", "__rfloordiv__")

    __mod__ = _binary("remainder", "__mod__")

    __rmod__ = _binary("rremainder", "__rmod__")

    __pow__ = _binary("pow", "__pow__")

    __rpow__ = _binary("rpow", "__rpow__")

    __matmul__ = _binary("matmul", "__matmul__", (Tensor,))  # a tensor only, no number

    def __rmatmul__(self: Any, other: Tensor = UNBOUND) -> Tensor:
        if not isinstance(self, Tensor):  # torch's TypeError, answered NotImplemented
            return NotImplemented
        if not isinstance(other, Tensor):
            return _foreign(self, other, "__rmatmul__")
        return ops.matmul(other, self)

    def __neg__(self: Any = UNBOUND) -> Tensor:
        if not isinstance(self, Tensor):
            unbound("__neg__", self)
        return ops.neg(self)

    def __pos__(self: Any = UNBOUND) -> Tensor:
        """``positive()``: ``self`` itself, refused for a bool tensor."""
        if not isinstance(self, Tensor):
            unbound("__pos__", self)
        return ops.positive(self)

    def __abs__(self: Any = UNBOUND) -> Tensor:
        if not isinstance(self, Tensor):
            unbound("__abs__", self)
        return ops.abs(self)

    __iadd__ = _binary("add_", "__iadd__")

    __isub__ = _binary("sub_", "__isub__")

    __imul__ = _binary("mul_", "__imul__")

    __itruediv__ = _binary("div_", "__itruediv__")

    __ifloordiv__ = _binary("floor_divide_", "__ifloordiv__")

    __imod__ = _binary("remainder_", "__imod__")

    __ipow__ = _binary("pow_", "__ipow__")

    __iand__ = _binary("bitwise_and_", "__iand__")

    __ior__ = _binary("bitwise_or_", "__ior__")

    __ixor__ = _binary("bitwise_xor_", "__ixor__")

    __eq__ = _binary("eq", "__eq__")  # type: ignore[assignment]

    __ne__ = _binary("ne", "__ne__")  # type: ignore[assignment]

    __lt__ = _binary("lt", "__lt__")

    __le__ = _binary("le", "__le__")

    __gt__ = _binary("gt", "__gt__")

    __ge__ = _binary("ge", "__ge__")

    def __invert__(self: Any = UNBOUND) -> Tensor:
        if not isinstance(self, Tensor):
            unbound("__invert__", self)
        return ops.invert(self)

    __and__ = _binary("bitwise_and", "__and__")

    __or__ = _binary("bitwise_or", "__or__")

    __xor__ = _binary("bitwise_xor", "__xor__")

    # reflected: ``2 & t`` is ``t & 2`` (each op is commutative)
    __rand__ = _binary("bitwise_and", "__rand__")

    __ror__ = _binary("bitwise_or", "__ror__")

    __rxor__ = _binary("bitwise_xor", "__rxor__")

    __lshift__ = _binary("bitwise_left_shift", "__lshift__")

    __rshift__ = _binary("bitwise_right_shift", "__rshift__")

    def __rlshift__(self: Any, other: Any = UNBOUND) -> Tensor:
        if not isinstance(self, Tensor):  # torch's TypeError, answered NotImplemented
            return NotImplemented
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rlshift__")
        return ops.shift_of_number(other, self, False)

    def __rrshift__(self: Any, other: Any = UNBOUND) -> Tensor:
        if not isinstance(self, Tensor):  # torch's TypeError, answered NotImplemented
            return NotImplemented
        if not isinstance(other, _TAKEN):
            return _foreign(self, other, "__rrshift__")
        return ops.shift_of_number(other, self, True)

    __ilshift__ = _binary("bitwise_left_shift_", "__ilshift__")

    __irshift__ = _binary("bitwise_right_shift_", "__irshift__")

    def __getitem__(self: Any = UNBOUND, index: Any = UNBOUND) -> Tensor:
        if not isinstance(self, Tensor) or index is UNBOUND:
            unbound_slot("__getitem__", self, index)
        return ops.getitem(self, index)

    def __setitem__(self: Any = UNBOUND, index: Any = UNBOUND, value: Any = UNBOUND) -> None:
        if not isinstance(self, Tensor) or value is UNBOUND:
            unbound_slot("__setitem__", self, index, value)
        ops.setitem(self, index, value)


METHODS = tuple(value for value in vars(TensorOperators).values() if callable(value))
"""The operators (``__add__`` ... ``__setitem__``), declared with the methods
(:data:`ownership.ops.methods.DECLARED`) and set on the Tensor as they are."""
