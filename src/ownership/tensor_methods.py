"""The Tensor methods that are ops: math, reductions, products, conversions and new tensors.

Each method forwards to the op of the same name in the registry
:data:`~ownership.op_registry.OPS`, which :mod:`ownership.ops` fills when the package is imported.
Keeping the methods here (base classes of :class:`~ownership._tensor.Tensor`) gives every op a
typed method without this layer importing the higher one that implements it. The operators,
view methods and in-place methods are in :mod:`ownership.tensor_operators`,
:mod:`ownership.tensor_views` and :mod:`ownership.tensor_inplace`.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, cast

from ownership import dtypes
from ownership import signatures as sig
from ownership.arguments import tensor_arg
from ownership.dtypes import dtype as DType
from ownership.op_registry import OPS, op
from ownership.tensor_extras import TensorExtras
from ownership.tensor_inplace import TensorInplace
from ownership.tensor_operators import TensorOperators
from ownership.tensor_views import TensorViews

if TYPE_CHECKING:
    from ownership._tensor import Tensor

__all__ = ["TensorMethods"]


def _dims(overload: builtins.int, a: dict[str, Any]) -> Any:
    """The dims of ``sum``/``mean``: none given (0), or the dim overload, where None means all."""
    if overload == 0:
        return None
    return () if a["dim"] is None else a["dim"]


def _extreme(t: Any, which: str, parsed: tuple[builtins.int, dict[str, Any]]) -> Any:
    """``max``/``min`` by overload: of all elements (0), elementwise (1), along ``dim`` (2)."""
    overload, a = parsed
    if overload == 1:
        other = a["other"]
        return OPS["where"]((t > other) if which == "max" else (t < other), t, other)
    if overload == 2:
        return OPS[which](t, a["dim"], a["keepdim"])
    return OPS[which](t)


class TensorMethods(TensorOperators, TensorViews, TensorInplace, TensorExtras):
    """Op methods of :class:`~ownership._tensor.Tensor` (see :mod:`ownership.ops`)."""

    __slots__ = ()
    dtype: DType

    def add(self, *args: Any, **kwargs: Any) -> Tensor:
        """``self + alpha * other``: ``add(other, *, alpha=1)``."""
        a = sig.ADD.parse(args, kwargs)[1]
        return op("add")(self, a["other"], alpha=a["alpha"])

    def sub(self, *args: Any, **kwargs: Any) -> Tensor:
        """``self - alpha * other``: ``sub(other, *, alpha=1)``."""
        a = sig.SUB.parse(args, kwargs)[1]
        return op("sub")(self, a["other"], alpha=a["alpha"])

    def mul(self, *args: Any, **kwargs: Any) -> Tensor:
        """``self * other``."""
        return op("mul")(self, sig.MUL.parse(args, kwargs)[1]["other"])

    def div(self, *args: Any, **kwargs: Any) -> Tensor:
        """``self / other``."""
        return op("div")(self, sig.DIV.parse(args, kwargs)[1]["other"])

    def pow(self, *args: Any, **kwargs: Any) -> Tensor:
        """``self ** exponent``."""
        return op("pow")(self, sig.POW.parse(args, kwargs)[1]["exponent"])

    def neg(self) -> Tensor:
        """``-self``."""
        return op("neg")(self)

    def exp(self) -> Tensor:
        """Elementwise exponential (saves its result)."""
        return op("exp")(self)

    def log(self) -> Tensor:
        """Elementwise natural log (saves its input)."""
        return op("log")(self)

    def sqrt(self) -> Tensor:
        """Elementwise square root (saves its result)."""
        return op("sqrt")(self)

    def abs(self) -> Tensor:
        """Elementwise absolute value (saves its input)."""
        return op("abs")(self)

    def sigmoid(self) -> Tensor:
        """Elementwise logistic function (saves its result)."""
        return op("sigmoid")(self)

    def tanh(self) -> Tensor:
        """Elementwise tanh (saves its result)."""
        return op("tanh")(self)

    def sin(self) -> Tensor:
        """Elementwise sine (saves its input)."""
        return op("sin")(self)

    def cos(self) -> Tensor:
        """Elementwise cosine (saves its input)."""
        return op("cos")(self)

    def relu(self) -> Tensor:
        """Elementwise max(x, 0) (saves its result)."""
        return op("relu")(self)

    def clamp(self, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise clamp into [min, max] (saves its input): ``clamp(min=None, max=None)``."""
        a = sig.CLAMP.parse(args, kwargs)[1]
        return op("clamp")(self, a["min"], a["max"])

    clip = clamp

    def where(self, condition: Tensor, y: Any) -> Tensor:
        """``self`` where ``condition`` holds, else ``y`` (``torch.where(condition, self, y)``)."""
        return op("where")(condition, self, y)

    def sum(self, *args: Any, **kwargs: Any) -> Tensor:
        """Sum of all elements, or over ``dim`` (``sum(dim=None, keepdim=False, *, dtype=None)``)."""
        overload, a = sig.SUM.parse(args, kwargs)
        return op("sum")(self, _dims(overload, a), a.get("keepdim", False), dtype=a["dtype"])

    def mean(self, *args: Any, **kwargs: Any) -> Tensor:
        """Mean of all elements, or over ``dim`` (``mean(dim=None, keepdim=False, *, dtype=None)``)."""
        overload, a = sig.MEAN.parse(args, kwargs)
        return op("mean")(self, _dims(overload, a), a.get("keepdim", False), dtype=a["dtype"])

    def max(self, *args: Any, **kwargs: Any) -> Any:
        """Maximum of all elements, ``(values, indices)`` over ``dim``, or elementwise with ``other``."""
        return _extreme(self, "max", sig.MAX.parse(args, kwargs))

    def min(self, *args: Any, **kwargs: Any) -> Any:
        """Minimum of all elements, ``(values, indices)`` over ``dim``, or elementwise with ``other``."""
        return _extreme(self, "min", sig.MIN.parse(args, kwargs))

    def argmax(self, *args: Any, **kwargs: Any) -> Tensor:
        """Index of the maximum (flattened when ``dim`` is None): ``argmax(dim=None, keepdim=False)``."""
        a = sig.ARGMAX.parse(args, kwargs)[1]
        return op("argmax")(self, a["dim"], a["keepdim"])

    def argmin(self, *args: Any, **kwargs: Any) -> Tensor:
        """Index of the minimum (flattened when ``dim`` is None): ``argmin(dim=None, keepdim=False)``."""
        a = sig.ARGMIN.parse(args, kwargs)[1]
        return op("argmin")(self, a["dim"], a["keepdim"])

    def softmax(self, *args: Any, **kwargs: Any) -> Tensor:
        """Softmax over ``dim`` (saves its result): ``softmax(dim, dtype=None)``."""
        a = sig.SOFTMAX.parse(args, kwargs)[1]
        return op("softmax")(self, a["dim"], a["dtype"])

    def log_softmax(self, *args: Any, **kwargs: Any) -> Tensor:
        """Log-softmax over ``dim`` (stable; saves its result): ``log_softmax(dim, dtype=None)``."""
        a = sig.LOG_SOFTMAX.parse(args, kwargs)[1]
        return op("log_softmax")(self, a["dim"], a["dtype"])

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product with torch's 1-D/2-D rules."""
        return op("matmul")(self, other)

    def mm(self, other: Tensor) -> Tensor:
        """2-D matrix product."""
        return op("mm")(self, other)

    def mv(self, vec: Tensor) -> Tensor:
        """Matrix @ vector."""
        return op("mv")(self, vec)

    def dot(self, other: Tensor) -> Tensor:
        """1-D dot product."""
        return op("dot")(self, other)

    def eq(self, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``==`` as a bool tensor."""
        return op("eq")(self, sig.COMPARE["eq"].parse(args, kwargs)[1]["other"])

    def ne(self, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``!=`` as a bool tensor."""
        return op("ne")(self, sig.COMPARE["ne"].parse(args, kwargs)[1]["other"])

    def lt(self, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``<``."""
        return op("lt")(self, sig.COMPARE["lt"].parse(args, kwargs)[1]["other"])

    def le(self, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``<=``."""
        return op("le")(self, sig.COMPARE["le"].parse(args, kwargs)[1]["other"])

    def gt(self, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``>``."""
        return op("gt")(self, sig.COMPARE["gt"].parse(args, kwargs)[1]["other"])

    def ge(self, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``>=``."""
        return op("ge")(self, sig.COMPARE["ge"].parse(args, kwargs)[1]["other"])

    def all(self) -> Tensor:
        """Whether all elements are true."""
        return op("all")(self)

    def any(self) -> Tensor:
        """Whether any element is true."""
        return op("any")(self)

    def clone(self) -> Tensor:
        """A copy with fresh storage (version 0), differentiable (``CloneBackward0``)."""
        return op("clone")(self)

    def contiguous(self) -> Tensor:
        """Self when already contiguous, else a contiguous copy."""
        return op("contiguous")(self)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert to a dtype (``"cpu"`` device arguments are accepted and ignored)."""
        return op("to")(self, *args, **kwargs)

    def type_as(self, other: Tensor) -> Tensor:
        """Convert to ``other``'s dtype."""
        tensor_arg("type_as", other, "other")
        return op("to")(self, other.dtype)

    def float(self) -> Tensor:
        """Convert to float32."""
        return op("to")(self, dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return op("to")(self, dtypes.float64)

    def long(self) -> Tensor:
        """Convert to int64."""
        return op("to")(self, dtypes.int64)

    def int(self) -> Tensor:
        """Convert to int32."""
        return op("to")(self, dtypes.int32)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return op("to")(self, dtypes.bool_)

    def cpu(self) -> Tensor:
        """Self: the engine is CPU only."""
        return cast("Tensor", self)

    def new_zeros(
        self, *size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Zeros with this tensor's dtype by default."""
        return op("zeros")(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(
        self, *size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Ones with this tensor's dtype by default."""
        return op("ones")(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_tensor(
        self, data: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """A new tensor from data with this tensor's dtype by default."""
        return op("tensor")(data, dtype=dtype or self.dtype, requires_grad=requires_grad)
