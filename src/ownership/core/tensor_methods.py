"""The Tensor methods that are ops: math, reductions, products, conversions and new tensors.

Each method forwards to its op through :data:`ops` (see :mod:`ownership.core.op_registry`), typed by
:class:`~ownership.core.op_table.OpTable`: a method that passes its op arguments the op's signature
does not take is a type error. Sections follow torch's reference: pointwise, reductions,
comparisons, matrix products, dtype conversions, statistics and new tensors (the bitwise and
logical ones are in :mod:`ownership.core.tensor_bitwise`). The operators, view
methods and in-place methods are in :mod:`ownership.core.tensor_operators`,
:mod:`ownership.core.tensor_views` and :mod:`ownership.core.tensor_inplace`; ``self`` is typed ``Any``
because a base class cannot name its subclass :class:`~ownership.core.tensor.Tensor` as ``self``.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, cast

from ownership.core import devices, dtypes, op_registry
from ownership.core import signatures as sig
from ownership.core.argument_values import dtype_arg, no_arguments, tensor_arg
from ownership.core.binder import Signatures
from ownership.core.dtypes import dtype as DType
from ownership.core.tensor_bitwise import TensorBitwise
from ownership.core.tensor_comparison import TensorComparison
from ownership.core.tensor_math import TensorMath
from ownership.core.tensor_numerics import TensorNumerics
from ownership.core.tensor_pointwise import TensorPointwise
from ownership.core.tensor_selection import TensorSelection

if TYPE_CHECKING:
    from ownership.core.op_table import OpTable
    from ownership.core.tensor import Tensor

ops: OpTable[Tensor] = op_registry.ops

__all__ = ["TensorMethods"]

# torch's signatures of the methods below that are not in ownership.core.signatures
_BMM = Signatures("bmm", "(Tensor mat2)")


def _dims(overload: builtins.int, a: dict[str, Any]) -> Any:
    """The dims of ``sum``/``mean``: none given (0), or the dim overload, where None means all."""
    if overload == 0:
        return None
    return () if a["dim"] is None else a["dim"]


def _extreme(t: Any, which: str, parsed: tuple[builtins.int, dict[str, Any]]) -> Any:
    """``max``/``min`` by overload: of all elements (0), elementwise (1), along ``dim`` (2)."""
    overload, a = parsed
    if overload == 1:  # torch's max.other is maximum (MaximumBackward0: a tie splits)
        return (ops.maximum if which == "max" else ops.minimum)(t, a["other"])
    extreme = ops.max if which == "max" else ops.min
    if overload == 2:
        return extreme(t, a["dim"], a["keepdim"])
    return extreme(t)


class TensorMethods(
    TensorMath, TensorComparison, TensorBitwise, TensorNumerics, TensorSelection, TensorPointwise
):
    """Op methods of :class:`~ownership.core.tensor.Tensor` (see :mod:`ownership.ops`)."""

    __slots__ = ()
    dtype: DType

    # ------------------------------------------------------------------ pointwise
    def add(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """``self + alpha * other``: ``add(other, *, alpha=1)``."""
        a = sig.ADD.parse(args, kwargs)[1]
        return ops.add(self, a["other"], alpha=a["alpha"])

    def sub(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """``self - alpha * other``: ``sub(other, *, alpha=1)``."""
        a = sig.SUB.parse(args, kwargs)[1]
        return ops.sub(self, a["other"], alpha=a["alpha"])

    def mul(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """``self * other``."""
        return ops.mul(self, sig.MUL.parse(args, kwargs)[1]["other"])

    def div(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """``self / other``; ``div(other, rounding_mode=...)`` rounds (``"trunc"``, ``"floor"``)."""
        overload, a = sig.DIV.parse(args, kwargs)
        if overload:
            return ops.div_rounded(self, a["other"], a["rounding_mode"])
        return ops.div(self, a["other"])

    def pow(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """``self ** exponent``."""
        return ops.pow(self, sig.POW.parse(args, kwargs)[1]["exponent"])

    def neg(self: Any, *args: Any) -> Tensor:
        """``-self``."""
        if args:
            no_arguments("neg", args)
        return ops.neg(self)

    def exp(self: Any, *args: Any) -> Tensor:
        """Elementwise exponential (saves its result)."""
        if args:
            no_arguments("exp", args)
        return ops.exp(self)

    def log(self: Any, *args: Any) -> Tensor:
        """Elementwise natural log (saves its input)."""
        if args:
            no_arguments("log", args)
        return ops.log(self)

    def sqrt(self: Any, *args: Any) -> Tensor:
        """Elementwise square root (saves its result)."""
        if args:
            no_arguments("sqrt", args)
        return ops.sqrt(self)

    def abs(self: Any, *args: Any) -> Tensor:
        """Elementwise absolute value (saves its input)."""
        if args:
            no_arguments("abs", args)
        return ops.abs(self)

    absolute = abs

    def sign(self: Any, *args: Any) -> Tensor:
        """Elementwise -1, 0 or 1 (``SignBackward0``: a zero gradient)."""
        if args:
            no_arguments("sign", args)
        return ops.sign(self)

    def reciprocal(self: Any, *args: Any) -> Tensor:
        """Elementwise ``1 / self`` (saves its result); integers give the default float dtype."""
        if args:
            no_arguments("reciprocal", args)
        return ops.reciprocal(self)

    def sigmoid(self: Any, *args: Any) -> Tensor:
        """Elementwise logistic function (saves its result)."""
        if args:
            no_arguments("sigmoid", args)
        return ops.sigmoid(self)

    def tanh(self: Any, *args: Any) -> Tensor:
        """Elementwise tanh (saves its result)."""
        if args:
            no_arguments("tanh", args)
        return ops.tanh(self)

    def sin(self: Any, *args: Any) -> Tensor:
        """Elementwise sine (saves its input)."""
        if args:
            no_arguments("sin", args)
        return ops.sin(self)

    def cos(self: Any, *args: Any) -> Tensor:
        """Elementwise cosine (saves its input)."""
        if args:
            no_arguments("cos", args)
        return ops.cos(self)

    def relu(self: Any, *args: Any) -> Tensor:
        """Elementwise max(x, 0) (saves its result)."""
        if args:
            no_arguments("relu", args)
        return ops.relu(self)

    def masked_fill(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """``value`` where ``mask`` is True: ``masked_fill(mask, value)``."""
        a = sig.MASKED_FILL.parse(args, kwargs)[1]
        return ops.masked_fill(self, a["mask"], a["value"])

    def clamp(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise clamp into [min, max] (saves its input): ``clamp(min=None, max=None)``."""
        a = sig.CLAMP.parse(args, kwargs)[1]
        return ops.clamp(self, a["min"], a["max"])

    clip = clamp

    def where(self: Any, condition: Tensor, y: Any) -> Tensor:
        """``self`` where ``condition`` holds, else ``y`` (``torch.where(condition, self, y)``)."""
        return ops.where(condition, self, y)

    # ------------------------------------------------------------------ reductions
    def sum(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Sum of all elements, or over ``dim`` (``sum(dim=None, keepdim=False, *, dtype=None)``)."""
        if not kwargs:  # ``x.sum()``, ``x.sum(dim)``: what the parser binds, unparsed
            if not args:
                return ops.sum(self, None, False, dtype=None)
            if len(args) == 1 and type(args[0]) is builtins.int:
                return ops.sum(self, (args[0],), False, dtype=None)
        overload, a = sig.SUM.parse(args, kwargs)
        return ops.sum(self, _dims(overload, a), a.get("keepdim", False), dtype=a["dtype"])

    def mean(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Mean of all elements, or over ``dim`` (``mean(dim=None, keepdim=False, *, dtype=None)``)."""
        if not kwargs:  # ``x.mean()``, ``x.mean(dim)``: what the parser binds, unparsed
            if not args:
                return ops.mean(self, None, False, dtype=None)
            if len(args) == 1 and type(args[0]) is builtins.int:
                return ops.mean(self, (args[0],), False, dtype=None)
        overload, a = sig.MEAN.parse(args, kwargs)
        return ops.mean(self, _dims(overload, a), a.get("keepdim", False), dtype=a["dtype"])

    def max(self, *args: Any, **kwargs: Any) -> Any:
        """Maximum of all elements, ``(values, indices)`` over ``dim``, or elementwise with ``other``."""
        return _extreme(self, "max", sig.MAX.parse(args, kwargs))

    def min(self, *args: Any, **kwargs: Any) -> Any:
        """Minimum of all elements, ``(values, indices)`` over ``dim``, or elementwise with ``other``."""
        return _extreme(self, "min", sig.MIN.parse(args, kwargs))

    def argmax(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Index of the maximum (flattened when ``dim`` is None): ``argmax(dim=None, keepdim=False)``."""
        a = sig.ARGMAX.parse(args, kwargs)[1]
        return ops.argmax(self, a["dim"], a["keepdim"])

    def argmin(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Index of the minimum (flattened when ``dim`` is None): ``argmin(dim=None, keepdim=False)``."""
        a = sig.ARGMIN.parse(args, kwargs)[1]
        return ops.argmin(self, a["dim"], a["keepdim"])

    def norm(
        self: Any,
        p: Any = "fro",
        dim: Any = None,
        keepdim: builtins.bool = False,
        dtype: Any = None,
    ) -> Tensor:
        """The vector p-norm (``LinalgVectorNormBackward0``)."""
        return ops.norm(self, p, dim, keepdim, dtype)

    def std(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """The standard deviation (``StdBackward0``): the overloads of :meth:`var`."""
        which, a = sig.STD.parse(args, kwargs)
        unbiased = None if which == 1 else a["unbiased"]  # (see ops.moments._correction)
        return ops.std(
            self, a.get("dim"), unbiased, a.get("keepdim", False), correction=a.get("correction")
        )

    def var(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """The variance, corrected by 1 unless told otherwise (``VarBackward0``):
        ``var(dim, unbiased=True, keepdim=False)``, ``var(dim=None, *, correction=None,
        keepdim=False)`` or ``var(unbiased=True)``."""
        which, a = sig.VAR.parse(args, kwargs)
        unbiased = None if which == 1 else a["unbiased"]  # (see ops.moments._correction)
        return ops.var(
            self, a.get("dim"), unbiased, a.get("keepdim", False), correction=a.get("correction")
        )

    def softmax(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Softmax over ``dim`` (saves its result): ``softmax(dim, dtype=None)``."""
        a = sig.SOFTMAX.parse(args, kwargs)[1]
        return ops.softmax(self, a["dim"], a["dtype"])

    def log_softmax(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Log-softmax over ``dim`` (stable; saves its result): ``log_softmax(dim, dtype=None)``."""
        a = sig.LOG_SOFTMAX.parse(args, kwargs)[1]
        return ops.log_softmax(self, a["dim"], a["dtype"])

    # ------------------------------------------------------------------ comparisons
    def eq(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``==`` as a bool tensor."""
        return ops.eq(self, sig.COMPARE["eq"].parse(args, kwargs)[1]["other"])

    def ne(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``!=`` as a bool tensor."""
        return ops.ne(self, sig.COMPARE["ne"].parse(args, kwargs)[1]["other"])

    def lt(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``<``."""
        return ops.lt(self, sig.COMPARE["lt"].parse(args, kwargs)[1]["other"])

    def le(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``<=``."""
        return ops.le(self, sig.COMPARE["le"].parse(args, kwargs)[1]["other"])

    def gt(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``>``."""
        return ops.gt(self, sig.COMPARE["gt"].parse(args, kwargs)[1]["other"])

    def ge(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Elementwise ``>=``."""
        return ops.ge(self, sig.COMPARE["ge"].parse(args, kwargs)[1]["other"])

    def isnan(self: Any, *args: Any) -> Tensor:
        """Where the elements are NaN, as a bool tensor (never recorded)."""
        if args:
            no_arguments("isnan", args)
        return ops.isnan(self)

    def isinf(self: Any, *args: Any) -> Tensor:
        """Where the elements are ``inf`` or ``-inf``, as a bool tensor."""
        if args:
            no_arguments("isinf", args)
        return ops.isinf(self)

    def isfinite(self: Any, *args: Any) -> Tensor:
        """Where the elements are neither NaN nor infinite, as a bool tensor."""
        if args:
            no_arguments("isfinite", args)
        return ops.isfinite(self)

    def equal(self, other: Tensor) -> builtins.bool:
        """Same shape and the same values (``torch.equal``)."""
        me: Any = self
        return builtins.bool(me.shape == other.shape and builtins.bool((me == other).all()))

    # ------------------------------------------------------------------ matrix products (BLAS)
    def matmul(self: Any, other: Tensor) -> Tensor:
        """Matrix product with torch's 1-D/2-D rules."""
        return ops.matmul(self, other)

    def mm(self: Any, other: Tensor) -> Tensor:
        """2-D matrix product."""
        return ops.mm(self, other)

    def mv(self: Any, vec: Tensor) -> Tensor:
        """Matrix @ vector."""
        return ops.mv(self, vec)

    def bmm(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Batched matrix product of two 3-D tensors: ``bmm(mat2)``."""
        return ops.bmm(self, _BMM.parse(args, kwargs)[1]["mat2"])

    def addmm(self: Any, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        """``beta * self + alpha * (mat1 @ mat2)`` (``AddmmBackward0``)."""
        return ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def dot(self: Any, other: Tensor) -> Tensor:
        """1-D dot product."""
        return ops.dot(self, other)

    # ------------------------------------------------------------------ copies and dtype conversions
    def clone(self: Any) -> Tensor:
        """A copy with fresh storage (version 0), differentiable (``CloneBackward0``)."""
        return ops.clone(self)

    def contiguous(self: Any) -> Tensor:
        """Self when already contiguous, else a contiguous copy."""
        return ops.contiguous(self)

    def to(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Convert to a dtype (``"cpu"`` device arguments are accepted and ignored)."""
        return ops.to(self, *args, **kwargs)

    def type_as(self: Any, other: Tensor) -> Tensor:
        """Convert to ``other``'s dtype."""
        tensor_arg("type_as", other, "other")
        return ops.to(self, other.dtype)

    def type(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``type()``: the legacy type name (``'torch.FloatTensor'``); ``type(dtype)``: self when
        it has that dtype, else a converted copy (``ToCopyBackward0``). ``dtype`` is a dtype or
        a legacy name (``'torch.LongTensor'``).

        >>> import ownership
        >>> x = ownership.tensor([1.5, 2.0])
        >>> x.type(), x.type("torch.LongTensor"), x.type(ownership.float32) is x
        ('torch.FloatTensor', tensor([1, 2]), True)
        """
        wanted = sig.TYPE.parse(args, kwargs)[1]["dtype"]
        if wanted is None:
            return f"torch.{self.dtype.legacy}"
        dt = dtypes.from_type(wanted)
        return self if dt is self.dtype else ops.to(self, dt)

    def float(self: Any) -> Tensor:
        """Convert to float32."""
        return ops.to(self, dtypes.float32)

    def double(self: Any) -> Tensor:
        """Convert to float64."""
        return ops.to(self, dtypes.float64)

    def long(self: Any) -> Tensor:
        """Convert to int64."""
        return ops.to(self, dtypes.int64)

    def int(self: Any) -> Tensor:
        """Convert to int32."""
        return ops.to(self, dtypes.int32)

    def bool(self: Any) -> Tensor:
        """Convert to bool."""
        return ops.to(self, dtypes.bool_)

    def cpu(self) -> Tensor:
        """Self: the engine is CPU only."""
        return cast("Tensor", self)

    # ------------------------------------------------------------------ new tensors like this one
    def new_zeros(
        self,
        *size: Any,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """Zeros with this tensor's dtype by default (the arguments checked as ``new_zeros``'s)."""
        a = sig.bind_sized(sig.NEW_ZEROS, size, dtype=dtype, device=device)
        return ops.zeros(
            a["size"], dtype=a["dtype"] or self.dtype, device=device, requires_grad=requires_grad
        )

    def new_ones(
        self,
        *size: Any,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """Ones with this tensor's dtype by default (the arguments checked as ``new_ones``'s)."""
        a = sig.bind_sized(sig.NEW_ONES, size, dtype=dtype, device=device)
        return ops.ones(
            a["size"], dtype=a["dtype"] or self.dtype, device=device, requires_grad=requires_grad
        )

    def new_empty(
        self,
        *size: Any,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """An uninitialised tensor with this tensor's dtype by default (here: zeros; the
        arguments checked as ``new_empty``'s)."""
        me: Any = self
        a = sig.bind_sized(sig.NEW_EMPTY, size, dtype=dtype, device=device)
        return ops.zeros(
            a["size"], dtype=a["dtype"] or me.dtype, device=device, requires_grad=requires_grad
        )

    def new_full(
        self,
        size: Any,
        fill_value: Any,
        *,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """A tensor of ``size`` filled with ``fill_value``, this tensor's dtype by default (the
        arguments checked as ``new_full``'s)."""
        me: Any = self
        a = sig.NEW_FULL.parse((size, fill_value), sig.given(dtype=dtype, device=device))[1]
        return ops.full(
            a["size"],
            fill_value,
            dtype=a["dtype"] or me.dtype,
            device=device,
            requires_grad=requires_grad,
        )

    def new_tensor(
        self,
        data: Any,
        *,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """A new tensor from data with this tensor's dtype by default (``dtype`` and ``device``
        checked as ``new_tensor``'s, keywords only as torch's)."""
        dt = dtype_arg("new_tensor", dtype) or self.dtype
        devices.device(device, "new_tensor")
        return ops.tensor(data, dtype=dt, requires_grad=requires_grad)
