"""The Tensor methods written by hand: what binding alone does not say.

Most methods are declared (:mod:`ownership.ops.methods`): bound by torch's signature, then the op.
These are the others, each declared there with ``method=``:

- overloads that reach different ops (``div(other, *, rounding_mode)`` rounds; ``max(other)`` is
  ``maximum``; ``prod()`` versus ``prod(dim)``; ``sort(*, stable)``; ``var``'s ``correction``);
- methods with Python's own binding (``matmul(other)``, ``clone()``, ``to(...)``, the samplers),
  conversions and new tensors.

Each calls its op through the op table (:data:`~ownership.core.op_registry.ops`), as a declared
method does.
"""

from __future__ import annotations

import builtins
from typing import Any

from ownership.core import dtypes, op_registry
from ownership.core.binder import Signatures
from ownership.core.dtypes import dtype as DType
from ownership.core.tensor import Tensor
from ownership.ops import devices
from ownership.ops import signatures as sig
from ownership.ops.argument_values import tensor_arg
from ownership.ops.dtype_arguments import dtype_arg
from ownership.ops.memory_formats import format_contiguous
from ownership.ops.op_table import OpTable

ops: OpTable[Tensor] = op_registry.ops

SUM = Signatures(
    "sum",
    "(*, torch.dtype dtype = None)",
    "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)",
)
MEAN = Signatures(
    "mean",
    "(*, torch.dtype dtype = None)",
    "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)",
)
MAX = Signatures("max", "()", "(Tensor other)", "(int dim, bool keepdim = False)")
MIN = Signatures("min", "()", "(Tensor other)", "(int dim, bool keepdim = False)")
DIV, DIV_ = (
    Signatures(
        name,
        "(Tensor other)",
        "(Tensor other, *, str? rounding_mode)",
        "(Number other, *, str? rounding_mode)",
        numbers_as_tensors=True,
    )
    for name in ("div", "div_")
)
ADD_ = Signatures(
    "add_", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True
)
PROD = Signatures(
    "prod",
    "(*, torch.dtype dtype = None)",
    "(int dim, bool keepdim = False, *, torch.dtype dtype = None)",
)
VAR = Signatures("var", *sig.VAR_OVERLOADS)
STD = Signatures("std", *sig.VAR_OVERLOADS)
SORT = Signatures(
    "sort",
    "(*, bool? stable, int dim = -1, bool descending = False)",
    "(int dim = -1, bool descending = False)",
)
ROUND, ROUND_ = (Signatures(name, "()", "(*, int decimals)") for name in ("round", "round_"))
NARROW = Signatures(
    "narrow", "(int dim, Tensor start, int length)", "(int dim, int start, int length)"
)
SPLIT = Signatures(
    "split",
    "(Tensor input, int split_size, int dim = 0)",
    "(Tensor input, tuple of ints split_size, int dim = 0)",
)
SPLIT_WITH_SIZES = Signatures(
    "split_with_sizes", "(Tensor input, tuple of ints split_sizes, int dim = 0)"
)
UNSAFE_CHUNK = Signatures("unsafe_chunk", "(int chunks, int dim = 0)")
UNSAFE_SPLIT = Signatures("unsafe_split", "(int split_size, int dim = 0)")
UNSAFE_SPLIT_WITH_SIZES = Signatures(
    "unsafe_split_with_sizes", "(tuple of ints split_sizes, int dim = 0)"
)


# ---------------------------------------------------------------- overloads
def add_(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """In place ``self += alpha * other``; bumps the version once."""
    a = ADD_.parse(args, kwargs)[1]
    return ops.add_(self, a["other"], alpha=a["alpha"])


def div(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``self / other``; ``div(other, rounding_mode=...)`` rounds (``"trunc"``, ``"floor"``)."""
    overload, a = DIV.parse(args, kwargs)
    if overload:
        return ops.div_rounded(self, a["other"], a["rounding_mode"])
    return ops.div(self, a["other"])


def div_(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """In place ``self /= other``; ``div_(other, rounding_mode=...)`` rounds."""
    overload, a = DIV_.parse(args, kwargs)
    if overload:
        return ops.div_rounded_(self, a["other"], a["rounding_mode"])
    return ops.div_(self, a["other"])


def _dims(overload: builtins.int, a: dict[str, Any]) -> Any:
    """The dims of ``sum``/``mean``: none given (0), or the dim overload, where None means all."""
    if overload == 0:
        return None
    return () if a["dim"] is None else a["dim"]


def sum(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Sum of all elements, or over ``dim`` (``sum(dim=None, keepdim=False, *, dtype=None)``)."""
    overload, a = SUM.parse(args, kwargs)
    return ops.sum(self, _dims(overload, a), a.get("keepdim", False), dtype=a["dtype"])


def mean(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Mean of all elements, or over ``dim`` (``mean(dim=None, keepdim=False, *, dtype=None)``)."""
    overload, a = MEAN.parse(args, kwargs)
    return ops.mean(self, _dims(overload, a), a.get("keepdim", False), dtype=a["dtype"])


def _extreme(t: Tensor, which: str, parsed: tuple[builtins.int, dict[str, Any]]) -> Any:
    """``max``/``min`` by overload: of all elements (0), elementwise (1), along ``dim`` (2)."""
    overload, a = parsed
    if overload == 1:  # torch's max.other is maximum (MaximumBackward0: a tie splits)
        return (ops.maximum if which == "max" else ops.minimum)(t, a["other"])
    extreme = ops.max if which == "max" else ops.min
    if overload == 2:
        return extreme(t, a["dim"], a["keepdim"])
    return extreme(t)


def max(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """Maximum of all elements, ``(values, indices)`` over ``dim``, or elementwise with ``other``."""
    return _extreme(self, "max", MAX.parse(args, kwargs))


def min(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """Minimum of all elements, ``(values, indices)`` over ``dim``, or elementwise with ``other``."""
    return _extreme(self, "min", MIN.parse(args, kwargs))


def prod(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Product of all elements, or along ``dim``: ``prod(dim, keepdim=False, *, dtype=None)``."""
    overload, a = PROD.parse(args, kwargs)
    if overload == 0:
        return ops.prod(self, dtype=a["dtype"])
    return ops.prod(self, a["dim"], a["keepdim"], dtype=a["dtype"])


def std(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The standard deviation (``StdBackward0``): the overloads of :meth:`var`."""
    which, a = STD.parse(args, kwargs)
    unbiased = None if which == 1 else a["unbiased"]  # (see ops.moments._correction)
    return ops.std(
        self, a.get("dim"), unbiased, a.get("keepdim", False), correction=a.get("correction")
    )


def var(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The variance, corrected by 1 unless told otherwise (``VarBackward0``):
    ``var(dim, unbiased=True, keepdim=False)``, ``var(dim=None, *, correction=None,
    keepdim=False)`` or ``var(unbiased=True)``."""
    which, a = VAR.parse(args, kwargs)
    unbiased = None if which == 1 else a["unbiased"]  # (see ops.moments._correction)
    return ops.var(
        self, a.get("dim"), unbiased, a.get("keepdim", False), correction=a.get("correction")
    )


def sort(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """``(values, indices)`` ordered along ``dim``:
    ``sort(dim=-1, descending=False)`` or ``sort(*, stable, dim=-1, descending=False)``."""
    overload, a = SORT.parse(args, kwargs)
    stable = a["stable"] if overload == 0 else False
    return ops.sort(self, a["dim"], a["descending"], stable)


def round(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The nearest whole number (half to even), or ``decimals`` places:
    ``round()`` or ``round(*, decimals)``."""
    overload, a = ROUND.parse(args, kwargs)
    return ops.round(self, a["decimals"] if overload else None)


def round_(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``round`` in place: ``round_()`` or ``round_(*, decimals)``."""
    overload, a = ROUND_.parse(args, kwargs)
    return ops.round_(self, a["decimals"] if overload else None)


def square(self: Tensor) -> Tensor:
    """Elementwise ``self ** 2``: torch's ``pow(self, 2)`` (``PowBackward0``, exponent 2)."""
    return ops.pow(self, 2)


def square_(self: Tensor) -> Tensor:
    """``square`` in place: ``pow_(2)``."""
    return ops.pow_(self, 2)


# ---------------------------------------------------------------- Python's own binding
def where(self: Tensor, condition: Tensor, y: Any) -> Tensor:
    """``self`` where ``condition`` holds, else ``y`` (``torch.where(condition, self, y)``)."""
    return ops.where(condition, self, y)


def norm(
    self: Tensor,
    p: Any = "fro",
    dim: Any = None,
    keepdim: builtins.bool = False,
    dtype: Any = None,
) -> Tensor:
    """The vector p-norm (``LinalgVectorNormBackward0``)."""
    return ops.norm(self, p, dim, keepdim, dtype)


def equal(self: Tensor, other: Tensor) -> builtins.bool:
    """Same shape and the same values (``torch.equal``)."""
    return builtins.bool(self.shape == other.shape and builtins.bool((self == other).all()))


def matmul(self: Tensor, other: Tensor) -> Tensor:
    """Matrix product with torch's 1-D/2-D rules."""
    return ops.matmul(self, other)


def mm(self: Tensor, other: Tensor) -> Tensor:
    """2-D matrix product."""
    return ops.mm(self, other)


def mv(self: Tensor, vec: Tensor) -> Tensor:
    """Matrix @ vector."""
    return ops.mv(self, vec)


def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * self + alpha * (mat1 @ mat2)`` (``AddmmBackward0``)."""
    return ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)


def dot(self: Tensor, other: Tensor) -> Tensor:
    """1-D dot product."""
    return ops.dot(self, other)


def copy_(self: Tensor, src: Any) -> Tensor:
    """Copy the tensor ``src`` (broadcastable) into self; a numpy array or a torch tensor is
    refused, as torch refuses a numpy array."""
    tensor_arg("copy_", src, "other")
    return ops.copy_(self, src)


def normal_(
    self: Tensor, mean: builtins.float = 0.0, std: builtins.float = 1.0, *, generator: Any = None
) -> Tensor:
    """Fill with normal samples in place."""
    return ops.normal_(self, mean, std, generator=generator)


def uniform_(
    self: Tensor, a: builtins.float = 0.0, b: builtins.float = 1.0, *, generator: Any = None
) -> Tensor:
    """Fill with uniform samples in place."""
    return ops.uniform_(self, a, b, generator=generator)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill with draws of 1 with probability ``p`` (a float or a tensor) in place."""
    return ops.bernoulli_(self, p, generator=generator)


def bernoulli(self: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """Draws of 1 with probability ``self`` (or ``p``), as ``torch.bernoulli``."""
    return ops.bernoulli(self, p, generator=generator)


def transpose_(self: Tensor, dim0: builtins.int, dim1: builtins.int) -> Tensor:
    """Swap two dims in place (``TransposeBackward1``)."""
    return ops.transpose_(self, dim0, dim1)


def swapdims_(self: Tensor, dim0: builtins.int, dim1: builtins.int) -> Tensor:
    """``transpose_``."""
    return ops.transpose_(self, dim0, dim1)


def swapaxes_(self: Tensor, axis0: builtins.int, axis1: builtins.int) -> Tensor:
    """``transpose_``."""
    return ops.transpose_(self, axis0, axis1)


def squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    """Drop size-1 dims in place."""
    return ops.squeeze_(self, dim)


def unsqueeze_(self: Tensor, dim: builtins.int) -> Tensor:
    """Insert a size-1 dim in place."""
    return ops.unsqueeze_(self, dim)


def as_strided_(self: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """Any geometry over the same storage, in place (``AsStridedBackward1``)."""
    return ops.as_strided_(self, size, stride, storage_offset)


# ---------------------------------------------------------------- views
def narrow(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Elements ``start..start+length`` of ``dim`` (a view): ``narrow(dim, start, length)``."""
    a = NARROW.parse(args, kwargs)[1]
    return ops.narrow(self, a["dim"], builtins.int(a["start"]), a["length"])


def split(self: Tensor, split_size: Any, dim: Any = 0) -> tuple[Tensor, ...]:
    """Pieces of ``split_size`` (or the given sizes) along ``dim`` (multi-output views)."""
    parser = SPLIT if isinstance(split_size, builtins.int) else SPLIT_WITH_SIZES
    a = parser.parse((self, split_size, dim), {})[1]
    return ops.split(self, a.get("split_size", a.get("split_sizes")), a["dim"])


def split_with_sizes(self: Tensor, split_sizes: Any, dim: builtins.int = 0) -> tuple[Tensor, ...]:
    """Pieces of the given sizes along ``dim`` (multi-output views)."""
    return ops.split(self, list(split_sizes), dim)


def unsafe_split(self: Tensor, *args: Any, **kwargs: Any) -> tuple[Tensor, ...]:
    """``split``'s pieces, which autograd does not see as views (own version counters)."""
    a = UNSAFE_SPLIT.parse(args, kwargs)[1]
    return ops.split(self, a["split_size"], a["dim"], True)


def unsafe_split_with_sizes(self: Tensor, *args: Any, **kwargs: Any) -> tuple[Tensor, ...]:
    """``split_with_sizes``'s pieces, which autograd does not see as views."""
    a = UNSAFE_SPLIT_WITH_SIZES.parse(args, kwargs)[1]
    return ops.split(self, list(a["split_sizes"]), a["dim"], True)


def unsafe_chunk(self: Tensor, *args: Any, **kwargs: Any) -> tuple[Tensor, ...]:
    """``chunk``'s pieces, which autograd does not see as views (own version counters)."""
    a = UNSAFE_CHUNK.parse(args, kwargs)[1]
    return ops.chunk(self, a["chunks"], a["dim"], True)


def swapdims(self: Tensor, dim0: builtins.int, dim1: builtins.int) -> Tensor:
    """``transpose`` (a view)."""
    return ops.transpose(self, dim0, dim1)


def swapaxes(self: Tensor, axis0: builtins.int, axis1: builtins.int) -> Tensor:
    """``transpose`` (a view)."""
    return ops.transpose(self, axis0, axis1)


# ``view_as``, ``reshape_as``, ``expand_as`` and ``type_as``: the method checks that ``other`` is a
# tensor before it calls the op (:mod:`ownership.ops.methods`, ``of_table(op, sig.VIEW_AS)``)
def view_as(self: Tensor, other: Tensor) -> Tensor:
    """``view(other.shape)``."""
    return ops.view(self, other.shape)


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    """``reshape(other.shape)``."""
    return ops.reshape(self, other.shape)


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    """``expand(other.shape)``."""
    return ops.expand(self, other.shape)


# ---------------------------------------------------------------- copies and dtype conversions
def clone(self: Tensor) -> Tensor:
    """A copy with fresh storage (version 0), differentiable (``CloneBackward0``)."""
    return ops.clone(self)


def contiguous(self: Tensor) -> Tensor:
    """Self when already contiguous, else a contiguous copy."""
    return ops.contiguous(self)


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert to a dtype (``"cpu"`` device arguments are accepted and ignored)."""
    return ops.to(self, *args, **kwargs)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """Convert to ``other``'s dtype."""
    return ops.to(self, other.dtype)


_TORCH_LEGACY = (
    "ByteTensor", "CharTensor", "ShortTensor", "HalfTensor", "BFloat16Tensor", "ComplexFloatTensor",
    "ComplexDoubleTensor",
)  # fmt: skip
"""torch's legacy type names of the dtypes the engine does not have."""


def _legacy_dtype(d: Any) -> DType:
    """The dtype ``Tensor.type(d)`` asks for: a dtype, or a legacy type name
    (``'torch.LongTensor'``), refused in torch's words (torch's names of dtypes the engine does
    not have, and CUDA's, are refused as unsupported)."""
    if isinstance(d, DType):
        return d
    if not isinstance(d, str):
        raise TypeError("dtype must be a type, str, or dtype object")
    for cand in dtypes.ALL:
        if d == f"torch.{cand.legacy}":
            return cand
    legacy = d.removeprefix("torch.").removeprefix("cuda.")
    if d.startswith("torch.") and (
        legacy in _TORCH_LEGACY or any(legacy == c.legacy for c in dtypes.ALL)
    ):
        raise RuntimeError(f"type({d!r}) is not supported by ownership")
    raise ValueError(f"invalid type: '{d}'")


def type(self: Tensor, *args: Any, **kwargs: Any) -> Any:
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
    dt = _legacy_dtype(wanted)
    return self if dt is self.dtype else ops.to(self, dt)


def _converted(t: Tensor, dt: DType, memory_format: Any) -> Tensor:
    """``t.to(dt)``, laid out in ``memory_format`` when one is given, as torch's conversions
    (``float()``... ``cpu()``) are ``to``: ``t`` itself when nothing changes."""
    if memory_format is None:
        return ops.to(t, dt)
    return ops.to(t, dt, memory_format=memory_format)


def float(self: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to float32."""
    return _converted(self, dtypes.float32, memory_format)


def double(self: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to float64."""
    return _converted(self, dtypes.float64, memory_format)


def long(self: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to int64."""
    return _converted(self, dtypes.int64, memory_format)


def int(self: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to int32."""
    return _converted(self, dtypes.int32, memory_format)


def bool(self: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to bool."""
    return _converted(self, dtypes.bool_, memory_format)


def cpu(self: Tensor, *, memory_format: Any = None) -> Tensor:
    """Self (the engine is CPU only), or a copy laid out in ``memory_format`` as ``to`` lays
    it out."""
    return _converted(self, self.dtype, memory_format)


def is_contiguous(self: Tensor, *, memory_format: Any = None) -> builtins.bool:
    """Whether ``self`` is laid out densely in ``memory_format``'s order: row-major when not
    given (``ownership.ops.memory_formats.format_contiguous``)."""
    if memory_format is None:
        return self._is_contiguous()
    return format_contiguous(memory_format, self._data.shape, self._stride())


# ---------------------------------------------------------------- new tensors like this one
def new_zeros(
    self: Tensor,
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
    self: Tensor,
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
    self: Tensor,
    *size: Any,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """An uninitialised tensor with this tensor's dtype by default (here: zeros; the
    arguments checked as ``new_empty``'s)."""
    a = sig.bind_sized(sig.NEW_EMPTY, size, dtype=dtype, device=device)
    return ops.zeros(
        a["size"], dtype=a["dtype"] or self.dtype, device=device, requires_grad=requires_grad
    )


def new_full(
    self: Tensor,
    size: Any,
    fill_value: Any,
    *,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value``, this tensor's dtype by default (the
    arguments checked as ``new_full``'s)."""
    a = sig.NEW_FULL.parse((size, fill_value), sig.given(dtype=dtype, device=device))[1]
    return ops.full(
        a["size"],
        fill_value,
        dtype=a["dtype"] or self.dtype,
        device=device,
        requires_grad=requires_grad,
    )


def new_tensor(
    self: Tensor,
    data: Any,
    *,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """A new tensor from data with this tensor's dtype by default (``dtype`` and ``device``
    checked as ``new_tensor``'s, keywords only as torch's)."""
    dt = dtype_arg("new_tensor", dtype) or self.dtype
    devices.check_device(device, "new_tensor")
    return ops.tensor(data, dtype=dt, requires_grad=requires_grad)
