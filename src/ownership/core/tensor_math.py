"""The Tensor methods of the math beyond ``+ - * /``: ``maximum``/``minimum``, ``clamp_min``/
``clamp_max``, ``floor_divide``, ``remainder``, ``cumsum``, ``prod`` (and their in-place forms),
``outer``.

Each binds its declared signature (:class:`~ownership.core.binder.Signatures`; torch's messages) and
forwards to its op through :data:`ops`; :class:`~ownership.core.tensor_methods.TensorMethods` inherits
them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership.core import op_registry
from ownership.core.binder import Signatures

if TYPE_CHECKING:
    from ownership.core.op_table import OpTable

# the tensor type is left open here: this base class of Tensor is not imported by its module
ops: OpTable[Any] = op_registry.ops

_MAXIMUM = Signatures("maximum", "(Tensor other)")
_MINIMUM = Signatures("minimum", "(Tensor other)")
_CLAMP_MIN = Signatures("clamp_min", "(Tensor min)", "(Number min)")
_CLAMP_MAX = Signatures("clamp_max", "(Tensor max)", "(Number max)")
_CLAMP_MIN_ = Signatures("clamp_min_", "(Tensor min)", "(Number min)")
_CLAMP_MAX_ = Signatures("clamp_max_", "(Tensor max)", "(Number max)")
_FLOOR_DIVIDE = Signatures("floor_divide", "(Tensor other)", "(Number other)")
_FLOOR_DIVIDE_ = Signatures("floor_divide_", "(Tensor other)", "(Number other)")
_REMAINDER = Signatures("remainder", "(Tensor other)", "(Number other)")
_REMAINDER_ = Signatures("remainder_", "(Tensor other)", "(Number other)")
_CUMSUM = Signatures("cumsum", "(int dim, *, torch.dtype dtype = None)")
_CUMSUM_ = Signatures("cumsum_", "(int dim, *, torch.dtype dtype = None)")
_OUTER = Signatures("outer", "(Tensor vec2)")
_PROD = Signatures(
    "prod",
    "(*, torch.dtype dtype = None)",
    "(int dim, bool keepdim = False, *, torch.dtype dtype = None)",
)


class TensorMath:
    """Math methods of :class:`~ownership.core.tensor.Tensor` beyond the arithmetic operators."""

    __slots__ = ()

    def maximum(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The elementwise larger of ``self`` and the tensor ``other``: ``maximum(other)``."""
        return ops.maximum(self, _MAXIMUM.parse(args, kwargs)[1]["other"])

    def minimum(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The elementwise smaller of ``self`` and the tensor ``other``: ``minimum(other)``."""
        return ops.minimum(self, _MINIMUM.parse(args, kwargs)[1]["other"])

    def clamp_min(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``clamp(min=min)``: ``clamp_min(min)``, a number or a tensor."""
        return ops.clamp_min(self, _CLAMP_MIN.parse(args, kwargs)[1]["min"])

    def clamp_max(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``clamp(max=max)``: ``clamp_max(max)``, a number or a tensor."""
        return ops.clamp_max(self, _CLAMP_MAX.parse(args, kwargs)[1]["max"])

    def clamp_min_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``clamp_min`` in place: ``clamp_min_(min)``."""
        return ops.clamp_min_(self, _CLAMP_MIN_.parse(args, kwargs)[1]["min"])

    def clamp_max_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``clamp_max`` in place: ``clamp_max_(max)``."""
        return ops.clamp_max_(self, _CLAMP_MAX_.parse(args, kwargs)[1]["max"])

    def floor_divide(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self // other``, rounded down: ``floor_divide(other)``."""
        return ops.floor_divide(self, _FLOOR_DIVIDE.parse(args, kwargs)[1]["other"])

    def floor_divide_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self //= other``: ``floor_divide_(other)``."""
        return ops.floor_divide_(self, _FLOOR_DIVIDE_.parse(args, kwargs)[1]["other"])

    def remainder(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self % other``, with the divisor's sign: ``remainder(other)``."""
        return ops.remainder(self, _REMAINDER.parse(args, kwargs)[1]["other"])

    def remainder_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self %= other``: ``remainder_(other)``."""
        return ops.remainder_(self, _REMAINDER_.parse(args, kwargs)[1]["other"])

    def cumsum(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Running sums along ``dim``: ``cumsum(dim, *, dtype=None)``."""
        a = _CUMSUM.parse(args, kwargs)[1]
        return ops.cumsum(self, a["dim"], a["dtype"])

    def cumsum_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``cumsum`` in place: ``cumsum_(dim, *, dtype=None)``."""
        a = _CUMSUM_.parse(args, kwargs)[1]
        return ops.cumsum_(self, a["dim"], a["dtype"])

    def prod(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Product of all elements, or along ``dim``: ``prod(dim, keepdim=False, *, dtype=None)``."""
        overload, a = _PROD.parse(args, kwargs)
        if overload == 0:
            return ops.prod(self, dtype=a["dtype"])
        return ops.prod(self, a["dim"], a["keepdim"], dtype=a["dtype"])

    def outer(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The outer product with the vector ``vec2``: ``outer(vec2)``."""
        return ops.outer(self, _OUTER.parse(args, kwargs)[1]["vec2"])
