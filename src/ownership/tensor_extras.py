"""Tensor methods PyTorch's own autograd tests and notes reach for: in-place view ops,
``_is_view``, ``new_empty``/``new_full``, ``norm``, ``var``/``var_mean``, ``argmin``,
``equal`` and ``split_with_sizes`` (see :mod:`ownership.ops.inplace_views` and
:mod:`ownership.ops.statistics`)."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from ownership.dtypes import dtype as DType
from ownership.op_registry import ops

if TYPE_CHECKING:
    from ownership._tensor import Tensor


class TensorExtras:
    """More methods of :class:`~ownership._tensor.Tensor`."""

    __slots__ = ()

    def _is_view(self) -> builtins.bool:
        """Whether this tensor is a view of another (it has a ``_base``)."""
        return getattr(self, "_base", None) is not None

    @property
    def output_nr(self) -> builtins.int:
        """Which output of its ``grad_fn`` this tensor is (0 for single-output nodes)."""
        me: Any = self
        return builtins.int(me._output_nr)

    def t_(self: Any) -> Tensor:
        """Transpose in place: new geometry, version + 1 (``TBackward1``)."""
        return ops.t_(self)

    def transpose_(self: Any, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """Swap two dims in place (``TransposeBackward1``)."""
        return ops.transpose_(self, dim0, dim1)

    def swapdims_(self: Any, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """``transpose_``."""
        return ops.transpose_(self, dim0, dim1)

    def swapaxes_(self: Any, axis0: builtins.int, axis1: builtins.int) -> Tensor:
        """``transpose_``."""
        return ops.transpose_(self, axis0, axis1)

    def swapdims(self: Any, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """``transpose`` (a view)."""
        return ops.transpose(self, dim0, dim1)

    def swapaxes(self: Any, axis0: builtins.int, axis1: builtins.int) -> Tensor:
        """``transpose`` (a view)."""
        return ops.transpose(self, axis0, axis1)

    def squeeze_(self: Any, dim: Any = None) -> Tensor:
        """Drop size-1 dims in place."""
        return ops.squeeze_(self, dim)

    def unsqueeze_(self: Any, dim: builtins.int) -> Tensor:
        """Insert a size-1 dim in place."""
        return ops.unsqueeze_(self, dim)

    def as_strided_(self: Any, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
        """Any geometry over the same storage, in place (``AsStridedBackward1``)."""
        return ops.as_strided_(self, size, stride, storage_offset)

    def new_empty(
        self, *size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """An uninitialised tensor with this tensor's dtype by default (here: zeros)."""
        me: Any = self
        return ops.zeros(*size, dtype=dtype or me.dtype, requires_grad=requires_grad)

    def new_full(
        self,
        size: Any,
        fill_value: Any,
        *,
        dtype: DType | None = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """A tensor of ``size`` filled with ``fill_value``, this tensor's dtype by default."""
        me: Any = self
        return ops.full(size, fill_value, dtype=dtype or me.dtype, requires_grad=requires_grad)

    def norm(
        self: Any,
        p: Any = "fro",
        dim: Any = None,
        keepdim: builtins.bool = False,
        dtype: Any = None,
    ) -> Tensor:
        """The vector p-norm (``LinalgVectorNormBackward0``)."""
        return ops.norm(self, p, dim, keepdim, dtype)

    def var(
        self: Any,
        dim: Any = None,
        unbiased: Any = None,
        keepdim: builtins.bool = False,
        *,
        correction: Any = None,
    ) -> Tensor:
        """The (Bessel-corrected) variance (``VarBackward0``)."""
        return ops.var(self, dim, unbiased, keepdim, correction=correction)

    def argmin(self: Any, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the smallest element (flat, or along ``dim``)."""
        return ops.argmin(self, dim, keepdim)

    def equal(self, other: Tensor) -> builtins.bool:
        """Same shape and the same values (``torch.equal``)."""
        me: Any = self
        return builtins.bool(me.shape == other.shape and builtins.bool((me == other).all()))

    def split_with_sizes(self: Any, split_sizes: Any, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """Pieces of the given sizes along ``dim`` (multi-output views)."""
        return ops.split(self, list(split_sizes), dim)
