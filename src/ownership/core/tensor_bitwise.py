"""The Tensor methods of torch's bitwise and logical ops: ``bitwise_and``, ``bitwise_or``,
``bitwise_xor``, the shifts ``bitwise_left_shift`` and ``bitwise_right_shift`` (each also in
place), and ``logical_and``, ``logical_or``, ``logical_not``.

Each binds its declared signature (:class:`~ownership.core.binder.Signatures`; torch's messages) and
forwards to its op (:mod:`ownership.ops.bitwise`, :mod:`ownership.ops.comparison`) through
:data:`ops`; :class:`~ownership.core.tensor_methods.TensorMethods` inherits them. The operators
``&``, ``|``, ``^``, ``<<``, ``>>`` are in :mod:`ownership.core.tensor_operators`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership.core import op_registry
from ownership.core.argument_values import no_arguments
from ownership.core.binder import Signatures

if TYPE_CHECKING:
    from ownership.core.op_table import OpTable

# the tensor type is left open here: this base class of Tensor is not imported by its module
ops: OpTable[Any] = op_registry.ops

__all__ = ["TensorBitwise"]

# torch's signatures of the methods below
_OTHER = {
    name: Signatures(name, "(Tensor other)", "(Number other)")
    for name in (
        "bitwise_and",
        "bitwise_and_",
        "bitwise_or",
        "bitwise_or_",
        "bitwise_xor",
        "bitwise_xor_",
        "bitwise_left_shift",
        "bitwise_left_shift_",
        "bitwise_right_shift",
        "bitwise_right_shift_",
    )
}
"""torch's one signature pair of each bitwise method: a tensor or a number ``other``."""


def _other(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The ``other`` of bitwise method ``name``, parsed as torch parses it."""
    return _OTHER[name].parse(args, kwargs)[1]["other"]


_LOGICAL_AND = Signatures("logical_and", "(Tensor other)")
_LOGICAL_OR = Signatures("logical_or", "(Tensor other)")


class TensorBitwise:
    """``bitwise_and``, ``bitwise_or``, ``bitwise_xor``, the shifts, and the logical ops."""

    __slots__ = ()

    def bitwise_and(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self & other`` of bool or integer tensors: ``bitwise_and(other)``."""
        return ops.bitwise_and(self, _other("bitwise_and", args, kwargs))

    def bitwise_or(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self | other`` of bool or integer tensors: ``bitwise_or(other)``."""
        return ops.bitwise_or(self, _other("bitwise_or", args, kwargs))

    def bitwise_xor(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self ^ other`` of bool or integer tensors: ``bitwise_xor(other)``."""
        return ops.bitwise_xor(self, _other("bitwise_xor", args, kwargs))

    def bitwise_left_shift(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self << other`` of integer tensors: ``bitwise_left_shift(other)``."""
        return ops.bitwise_left_shift(self, _other("bitwise_left_shift", args, kwargs))

    def bitwise_right_shift(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self >> other`` of integer tensors: ``bitwise_right_shift(other)``."""
        return ops.bitwise_right_shift(self, _other("bitwise_right_shift", args, kwargs))

    def bitwise_left_shift_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self <<= other`` in place: ``bitwise_left_shift_(other)``."""
        return ops.bitwise_left_shift_(self, _other("bitwise_left_shift_", args, kwargs))

    def bitwise_right_shift_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self >>= other`` in place: ``bitwise_right_shift_(other)``."""
        return ops.bitwise_right_shift_(self, _other("bitwise_right_shift_", args, kwargs))

    def bitwise_and_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self &= other`` in place: ``bitwise_and_(other)``."""
        return ops.bitwise_and_(self, _other("bitwise_and_", args, kwargs))

    def bitwise_or_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self |= other`` in place: ``bitwise_or_(other)``."""
        return ops.bitwise_or_(self, _other("bitwise_or_", args, kwargs))

    def bitwise_xor_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self ^= other`` in place: ``bitwise_xor_(other)``."""
        return ops.bitwise_xor_(self, _other("bitwise_xor_", args, kwargs))

    def logical_and(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Elementwise ``and`` as a bool tensor: ``logical_and(other)``."""
        return ops.logical_and(self, _LOGICAL_AND.parse(args, kwargs)[1]["other"])

    def logical_or(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Elementwise ``or`` as a bool tensor: ``logical_or(other)``."""
        return ops.logical_or(self, _LOGICAL_OR.parse(args, kwargs)[1]["other"])

    def logical_not(self: Any, *args: Any) -> Any:
        """Elementwise ``not`` as a bool tensor (``x == 0``, any dtype)."""
        if args:
            no_arguments("logical_not", args)
        return ops.logical_not(self)
