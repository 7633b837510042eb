"""The Tensor methods that are ops: operators, math, reductions, views and in-place ops.

Each method forwards to the op of the same name in the registry :data:`OPS`, which
:mod:`ownership.ops` fills when the package is imported. Keeping the methods here (a base class
of :class:`~ownership.tensor.Tensor`) gives every op a typed method without this layer importing
the higher one that implements it.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ownership import dtypes
from ownership.dtypes import dtype as DType

if TYPE_CHECKING:
    from ownership.tensor import Tensor

OPS: dict[str, Callable[..., Any]] = {}
"""Op implementations by name, filled in by :mod:`ownership.ops` when the package is imported."""


def _op(name: str) -> Callable[..., Tensor]:
    return OPS[name]


def _op_many(name: str) -> Callable[..., tuple[Tensor, ...]]:
    return OPS[name]


class TensorMethods:
    """Op methods of :class:`~ownership.tensor.Tensor` (see :mod:`ownership.ops`)."""

    __slots__ = ()
    dtype: DType

    def __add__(self, other: Any) -> Tensor:
        return _op("add")(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return _op("add")(self, other)

    def __sub__(self, other: Any) -> Tensor:
        return _op("sub")(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _op("rsub")(self, other)

    def __mul__(self, other: Any) -> Tensor:
        return _op("mul")(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _op("mul")(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return _op("div")(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _op("rdiv")(self, other)

    def __pow__(self, other: Any) -> Tensor:
        return _op("pow")(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return _op("rpow")(self, other)

    def __matmul__(self, other: Tensor) -> Tensor:
        if not hasattr(other, "_storage"):
            return NotImplemented
        return _op("matmul")(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return _op("matmul")(other, self)

    def __neg__(self) -> Tensor:
        return _op("neg")(self)

    def __pos__(self) -> Tensor:
        return cast("Tensor", self)

    def __abs__(self) -> Tensor:
        return _op("abs")(self)

    def __iadd__(self, other: Any) -> Tensor:
        return _op("add_")(self, other)

    def __isub__(self, other: Any) -> Tensor:
        return _op("sub_")(self, other)

    def __imul__(self, other: Any) -> Tensor:
        return _op("mul_")(self, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return _op("div_")(self, other)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _op("eq")(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _op("ne")(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return _op("lt")(self, other)

    def __le__(self, other: Any) -> Tensor:
        return _op("le")(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _op("gt")(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _op("ge")(self, other)

    def __invert__(self) -> Tensor:
        return _op("logical_not")(self)

    def __and__(self, other: Any) -> Tensor:
        return _op("logical_and")(self, other)

    def __or__(self, other: Any) -> Tensor:
        return _op("logical_or")(self, other)

    def __getitem__(self, index: Any) -> Tensor:
        return _op("getitem")(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        OPS["setitem"](self, index, value)

    def add(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """``self + alpha * other``."""
        return _op("add")(self, other, alpha=alpha)

    def sub(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """``self - alpha * other``."""
        return _op("sub")(self, other, alpha=alpha)

    def mul(self, other: Any) -> Tensor:
        """``self * other``."""
        return _op("mul")(self, other)

    def div(self, other: Any) -> Tensor:
        """``self / other``."""
        return _op("div")(self, other)

    def pow(self, exponent: Any) -> Tensor:
        """``self ** exponent``."""
        return _op("pow")(self, exponent)

    def neg(self) -> Tensor:
        """``-self``."""
        return _op("neg")(self)

    def exp(self) -> Tensor:
        """Elementwise exponential (saves its result)."""
        return _op("exp")(self)

    def log(self) -> Tensor:
        """Elementwise natural log (saves its input)."""
        return _op("log")(self)

    def sqrt(self) -> Tensor:
        """Elementwise square root (saves its result)."""
        return _op("sqrt")(self)

    def abs(self) -> Tensor:
        """Elementwise absolute value (saves its input)."""
        return _op("abs")(self)

    def sigmoid(self) -> Tensor:
        """Elementwise logistic function (saves its result)."""
        return _op("sigmoid")(self)

    def tanh(self) -> Tensor:
        """Elementwise tanh (saves its result)."""
        return _op("tanh")(self)

    def relu(self) -> Tensor:
        """Elementwise max(x, 0) (saves its result)."""
        return _op("relu")(self)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:
        """Elementwise clamp into [min, max] (saves its input)."""
        return _op("clamp")(self, min, max)

    clip = clamp

    def sum(
        self, dim: Any = None, keepdim: builtins.bool = False, *, dtype: DType | None = None
    ) -> Tensor:
        """Sum of all elements, or over ``dim``."""
        return _op("sum")(self, dim, keepdim, dtype=dtype)

    def mean(
        self, dim: Any = None, keepdim: builtins.bool = False, *, dtype: DType | None = None
    ) -> Tensor:
        """Mean of all elements, or over ``dim``."""
        return _op("mean")(self, dim, keepdim, dtype=dtype)

    def max(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        """Maximum of all elements, or ``(values, indices)`` over ``dim``."""
        return OPS["max"](self, dim, keepdim)

    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        """Minimum of all elements, or ``(values, indices)`` over ``dim``."""
        return OPS["min"](self, dim, keepdim)

    def argmax(self, dim: builtins.int | None = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the maximum (flattened when ``dim`` is None)."""
        return _op("argmax")(self, dim, keepdim)

    def softmax(self, dim: builtins.int) -> Tensor:
        """Softmax over ``dim`` (saves its result)."""
        return _op("softmax")(self, dim)

    def log_softmax(self, dim: builtins.int) -> Tensor:
        """Log-softmax over ``dim`` (stable; saves its result)."""
        return _op("log_softmax")(self, dim)

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product with torch's 1-D/2-D rules."""
        return _op("matmul")(self, other)

    def mm(self, other: Tensor) -> Tensor:
        """2-D matrix product."""
        return _op("mm")(self, other)

    def mv(self, vec: Tensor) -> Tensor:
        """Matrix @ vector."""
        return _op("mv")(self, vec)

    def dot(self, other: Tensor) -> Tensor:
        """1-D dot product."""
        return _op("dot")(self, other)

    def eq(self, other: Any) -> Tensor:
        """Elementwise ``==`` as a bool tensor."""
        return _op("eq")(self, other)

    def ne(self, other: Any) -> Tensor:
        """Elementwise ``!=`` as a bool tensor."""
        return _op("ne")(self, other)

    def lt(self, other: Any) -> Tensor:
        """Elementwise ``<``."""
        return _op("lt")(self, other)

    def le(self, other: Any) -> Tensor:
        """Elementwise ``<=``."""
        return _op("le")(self, other)

    def gt(self, other: Any) -> Tensor:
        """Elementwise ``>``."""
        return _op("gt")(self, other)

    def ge(self, other: Any) -> Tensor:
        """Elementwise ``>=``."""
        return _op("ge")(self, other)

    def all(self) -> Tensor:
        """Whether all elements are true."""
        return _op("all")(self)

    def any(self) -> Tensor:
        """Whether any element is true."""
        return _op("any")(self)

    def clone(self) -> Tensor:
        """A copy with fresh storage (version 0), differentiable (``CloneBackward0``)."""
        return _op("clone")(self)

    def contiguous(self) -> Tensor:
        """Self when already contiguous, else a contiguous copy."""
        return _op("contiguous")(self)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert to a dtype (``"cpu"`` device arguments are accepted and ignored)."""
        return _op("to")(self, *args, **kwargs)

    def type_as(self, other: Tensor) -> Tensor:
        """Convert to ``other``'s dtype."""
        return _op("to")(self, other.dtype)

    def float(self) -> Tensor:
        """Convert to float32."""
        return _op("to")(self, dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return _op("to")(self, dtypes.float64)

    def long(self) -> Tensor:
        """Convert to int64."""
        return _op("to")(self, dtypes.int64)

    def int(self) -> Tensor:
        """Convert to int32."""
        return _op("to")(self, dtypes.int32)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return _op("to")(self, dtypes.bool_)

    def cpu(self) -> Tensor:
        """Self: the engine is CPU only."""
        return cast("Tensor", self)

    def new_zeros(
        self, *size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Zeros with this tensor's dtype by default."""
        return _op("zeros")(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(
        self, *size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Ones with this tensor's dtype by default."""
        return _op("ones")(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_tensor(
        self, data: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """A new tensor from data with this tensor's dtype by default."""
        return _op("tensor")(data, dtype=dtype or self.dtype, requires_grad=requires_grad)

    # views
    def view(self, *shape: Any) -> Tensor:
        """Same storage, new shape (fails when the strides do not allow it)."""
        return _op("view")(self, *shape)

    def view_as(self, other: Tensor) -> Tensor:
        """``view(other.shape)``."""
        return _op("view")(self, other.shape)

    def reshape(self, *shape: Any) -> Tensor:
        """A view when the strides allow it, else a copy."""
        return _op("reshape")(self, *shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        """``reshape(other.shape)``."""
        return _op("reshape")(self, other.shape)

    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = -1) -> Tensor:
        """Merge dimensions ``start_dim..end_dim`` (a view when possible)."""
        return _op("flatten")(self, start_dim, end_dim)

    def t(self) -> Tensor:
        """Transpose of a tensor of at most 2 dimensions (a view)."""
        return _op("t")(self)

    @property
    def T(self) -> Tensor:
        """All dimensions reversed (a view)."""
        return _op("T")(self)

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped (a view)."""
        return _op("transpose")(self, -2, -1)

    def transpose(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """Two dimensions swapped (a view)."""
        return _op("transpose")(self, dim0, dim1)

    def permute(self, *dims: Any) -> Tensor:
        """Dimensions reordered (a view)."""
        return _op("permute")(self, *dims)

    def expand(self, *sizes: Any) -> Tensor:
        """Size-1 dimensions repeated with stride 0 (a view; writing into it is refused)."""
        return _op("expand")(self, *sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        """``expand(other.shape)``."""
        return _op("expand")(self, other.shape)

    def unsqueeze(self, dim: builtins.int) -> Tensor:
        """A new size-1 dimension at ``dim`` (a view)."""
        return _op("unsqueeze")(self, dim)

    def squeeze(self, dim: Any = None) -> Tensor:
        """Size-1 dimensions removed (a view)."""
        return _op("squeeze")(self, dim)

    def narrow(self, dim: builtins.int, start: builtins.int, length: builtins.int) -> Tensor:
        """Elements ``start..start+length`` of ``dim`` (a view)."""
        return _op("narrow")(self, dim, start, length)

    def select(self, dim: builtins.int, index: builtins.int) -> Tensor:
        """Index ``index`` of ``dim``, removing it (a view)."""
        return _op("select")(self, dim, index)

    def unbind(self, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """All slices along ``dim`` (multi-output views: refuse in-place with grad on)."""
        return _op_many("unbind")(self, dim)

    def split(self, split_size: Any, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """Pieces of ``split_size`` (or the given sizes) along ``dim`` (multi-output views)."""
        return _op_many("split")(self, split_size, dim)

    def chunk(self, chunks: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """``chunks`` nearly equal pieces along ``dim`` (multi-output views)."""
        return _op_many("chunk")(self, chunks, dim)

    # in-place
    def add_(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """In place ``self += alpha * other``; bumps the version once."""
        return _op("add_")(self, other, alpha=alpha)

    def sub_(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """In place ``self -= alpha * other``."""
        return _op("sub_")(self, other, alpha=alpha)

    def mul_(self, other: Any) -> Tensor:
        """In place ``self *= other``."""
        return _op("mul_")(self, other)

    def div_(self, other: Any) -> Tensor:
        """In place ``self /= other``."""
        return _op("div_")(self, other)

    def pow_(self, exponent: Any) -> Tensor:
        """In place ``self **= exponent``."""
        return _op("pow_")(self, exponent)

    def zero_(self) -> Tensor:
        """Fill with zeros in place."""
        return _op("zero_")(self)

    def fill_(self, value: Any) -> Tensor:
        """Fill with ``value`` in place."""
        return _op("fill_")(self, value)

    def copy_(self, src: Any) -> Tensor:
        """Copy ``src`` (a tensor, numpy array or torch tensor, broadcastable) into self."""
        return _op("copy_")(self, src)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:
        """Clamp in place."""
        return _op("clamp_")(self, min, max)

    clip_ = clamp_

    def relu_(self) -> Tensor:
        """ReLU in place."""
        return _op("relu_")(self)

    def sigmoid_(self) -> Tensor:
        """Sigmoid in place (saves the new value)."""
        return _op("sigmoid_")(self)

    def exp_(self) -> Tensor:
        """Exponential in place (saves the new value)."""
        return _op("exp_")(self)

    def tanh_(self) -> Tensor:
        """Tanh in place (saves the new value)."""
        return _op("tanh_")(self)

    def neg_(self) -> Tensor:
        """Negate in place."""
        return _op("neg_")(self)

    def normal_(
        self, mean: builtins.float = 0.0, std: builtins.float = 1.0, *, generator: Any = None
    ) -> Tensor:
        """Fill with normal samples in place."""
        return _op("normal_")(self, mean, std, generator=generator)

    def uniform_(
        self, a: builtins.float = 0.0, b: builtins.float = 1.0, *, generator: Any = None
    ) -> Tensor:
        """Fill with uniform samples in place."""
        return _op("uniform_")(self, a, b, generator=generator)
