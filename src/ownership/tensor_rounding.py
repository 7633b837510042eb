"""The Tensor methods that round: ``floor``, ``ceil``, ``round``, ``trunc`` and their in-place
forms (:mod:`ownership.ops.rounding`).

Each parses torch's signature (:class:`~ownership.arguments.Parser`, torch's messages) and
forwards to its op through :data:`ops`; :class:`~ownership.tensor_methods.TensorMethods` inherits
them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership import op_registry
from ownership.arguments import Parser, no_arguments

if TYPE_CHECKING:
    from ownership.op_table import OpTable

# the tensor type is left open here: this base class of Tensor is not imported by its module
ops: OpTable[Any] = op_registry.ops

_ROUND = Parser("round", "()", "(*, int decimals)")
_ROUND_ = Parser("round_", "()", "(*, int decimals)")

__all__ = ["TensorRounding"]


class TensorRounding:
    """``floor``, ``ceil``, ``round``, ``trunc`` and ``floor_``, ``ceil_``, ``round_``, ``trunc_``."""

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
