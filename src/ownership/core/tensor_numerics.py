"""The Tensor methods of torch's numeric ops added with their ops in one module each: ``repeat``
(:mod:`ownership.ops.repetition`), ``square`` (torch's ``pow(self, 2)``), ``nan_to_num``
(:mod:`ownership.ops.nonfinite`), ``cumprod`` (:mod:`ownership.ops.running_products`) and
``nansum`` (:mod:`ownership.ops.nan_sums`).

Each binds its declared signature (:class:`~ownership.core.binder.Signatures`; torch's messages) and
forwards to its op through :data:`ops`; :class:`~ownership.core.tensor_methods.TensorMethods` inherits
them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership.core import op_registry
from ownership.core import signatures as sig
from ownership.core.argument_values import no_arguments

if TYPE_CHECKING:
    from ownership.core.op_table import OpTable

# the tensor type is left open here: this base class of Tensor is not imported by its module
ops: OpTable[Any] = op_registry.ops

__all__ = ["TensorNumerics"]


class TensorNumerics:
    """``repeat``, ``square``, ``nan_to_num``, ``cumprod``, ``nansum``."""

    def repeat(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The tensor tiled along each dim, a new tensor: ``repeat(*repeats)``."""
        return ops.repeat(self, sig.REPEAT.parse(args, kwargs)[1]["repeats"])

    def square(self: Any, *args: Any) -> Any:
        """Elementwise ``self ** 2``: torch's ``pow(self, 2)`` (``PowBackward0``, exponent 2)."""
        if args:
            no_arguments("square", args)
        return ops.pow(self, 2)

    def square_(self: Any, *args: Any) -> Any:
        """``square`` in place: ``pow_(2)``."""
        if args:
            no_arguments("square_", args)
        return ops.pow_(self, 2)

    def nan_to_num(self: Any, *args: Any, **kwargs: Any) -> Any:
        """NaN, +inf and -inf replaced: ``nan_to_num(nan=0.0, posinf=None, neginf=None)``."""
        a = sig.NAN_TO_NUM.parse(args, kwargs)[1]
        return ops.nan_to_num(self, a["nan"], a["posinf"], a["neginf"])

    def nan_to_num_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``nan_to_num`` in place."""
        a = sig.NAN_TO_NUM_.parse(args, kwargs)[1]
        return ops.nan_to_num_(self, a["nan"], a["posinf"], a["neginf"])

    def cumprod(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Running products along ``dim``: ``cumprod(dim, *, dtype=None)``."""
        a = sig.CUMPROD.parse(args, kwargs)[1]
        return ops.cumprod(self, a["dim"], a["dtype"])

    def cumprod_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``cumprod`` in place: ``cumprod_(dim, *, dtype=None)``."""
        a = sig.CUMPROD_.parse(args, kwargs)[1]
        return ops.cumprod_(self, a["dim"], a["dtype"])

    def nansum(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The sum with NaN as 0: ``nansum(dim=None, keepdim=False, *, dtype=None)``."""
        a = sig.NANSUM.parse(args, kwargs)[1]
        return ops.nansum(self, a["dim"], a["keepdim"], dtype=a["dtype"])
