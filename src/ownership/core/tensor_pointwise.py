"""The Tensor methods of pointwise functions added each with its own op module: ``floor``,
``ceil``, ``round``, ``trunc`` (:mod:`ownership.ops.rounding`), ``log1p``, ``expm1`` and ``erf``
(:mod:`ownership.ops.special_unary`), and their in-place forms.

Each binds its declared signature (:class:`~ownership.core.binder.Signatures`; torch's messages) and
forwards to its op through :data:`ops`; :class:`~ownership.core.tensor_methods.TensorMethods` inherits
them.
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

_ROUND = Signatures("round", "()", "(*, int decimals)")
_ROUND_ = Signatures("round_", "()", "(*, int decimals)")

__all__ = ["TensorPointwise"]


class TensorPointwise:
    """``floor``, ``ceil``, ``round``, ``trunc``, ``log1p``, ``expm1``, ``erf`` and their
    in-place forms."""

    def floor(self: Any, *args: Any) -> Any:
        """The largest whole number not above each element."""
        if args:
            no_arguments("floor", args)
        return ops.floor(self)

    def ceil(self: Any, *args: Any) -> Any:
        """The smallest whole number not below each element."""
        if args:
            no_arguments("ceil", args)
        return ops.ceil(self)

    def trunc(self: Any, *args: Any) -> Any:
        """Each element with its fraction dropped (toward zero)."""
        if args:
            no_arguments("trunc", args)
        return ops.trunc(self)

    def round(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The nearest whole number (half to even), or ``decimals`` places:
        ``round()`` or ``round(*, decimals)``."""
        overload, a = _ROUND.parse(args, kwargs)
        return ops.round(self, a["decimals"] if overload else None)

    def floor_(self: Any, *args: Any) -> Any:
        """``floor`` in place."""
        if args:
            no_arguments("floor_", args)
        return ops.floor_(self)

    def ceil_(self: Any, *args: Any) -> Any:
        """``ceil`` in place."""
        if args:
            no_arguments("ceil_", args)
        return ops.ceil_(self)

    def trunc_(self: Any, *args: Any) -> Any:
        """``trunc`` in place."""
        if args:
            no_arguments("trunc_", args)
        return ops.trunc_(self)

    def round_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``round`` in place: ``round_()`` or ``round_(*, decimals)``."""
        overload, a = _ROUND_.parse(args, kwargs)
        return ops.round_(self, a["decimals"] if overload else None)

    def log1p(self: Any, *args: Any) -> Any:
        """``log(1 + self)``, exact near 0."""
        if args:
            no_arguments("log1p", args)
        return ops.log1p(self)

    def log1p_(self: Any, *args: Any) -> Any:
        """``log1p`` in place."""
        if args:
            no_arguments("log1p_", args)
        return ops.log1p_(self)

    def expm1(self: Any, *args: Any) -> Any:
        """``exp(self) - 1``, exact near 0."""
        if args:
            no_arguments("expm1", args)
        return ops.expm1(self)

    def expm1_(self: Any, *args: Any) -> Any:
        """``expm1`` in place."""
        if args:
            no_arguments("expm1_", args)
        return ops.expm1_(self)

    def erf(self: Any, *args: Any) -> Any:
        """The error function of each element."""
        if args:
            no_arguments("erf", args)
        return ops.erf(self)

    def erf_(self: Any, *args: Any) -> Any:
        """``erf`` in place."""
        if args:
            no_arguments("erf_", args)
        return ops.erf_(self)
