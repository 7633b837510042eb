"""Tensor view methods: results share storage and version counter with the tensor (``_base``).

``reshape`` is a view when the strides allow it, else a copy; ``unbind``/``split``/``chunk``
return multi-output views, which refuse in-place writes with grad mode on.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from ownership.op_registry import op, op_many

if TYPE_CHECKING:
    from ownership.tensor import Tensor


class TensorViews:
    """The view methods of :class:`~ownership.tensor.Tensor` (see :mod:`ownership.ops.views` and :mod:`ownership.ops.multi_views`)."""

    __slots__ = ()

    def view(self, *shape: Any) -> Tensor:
        """Same storage, new shape (fails when the strides do not allow it)."""
        return op("view")(self, *shape)

    def view_as(self, other: Tensor) -> Tensor:
        """``view(other.shape)``."""
        return op("view")(self, other.shape)

    def reshape(self, *shape: Any) -> Tensor:
        """A view when the strides allow it, else a copy."""
        return op("reshape")(self, *shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        """``reshape(other.shape)``."""
        return op("reshape")(self, other.shape)

    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = -1) -> Tensor:
        """Merge dimensions ``start_dim..end_dim`` (a view when possible)."""
        return op("flatten")(self, start_dim, end_dim)

    def t(self) -> Tensor:
        """Transpose of a tensor of at most 2 dimensions (a view)."""
        return op("t")(self)

    @property
    def T(self) -> Tensor:
        """All dimensions reversed (a view)."""
        return op("T")(self)

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped (a view)."""
        return op("transpose")(self, -2, -1)

    def transpose(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """Two dimensions swapped (a view)."""
        return op("transpose")(self, dim0, dim1)

    def permute(self, *dims: Any) -> Tensor:
        """Dimensions reordered (a view)."""
        return op("permute")(self, *dims)

    def expand(self, *sizes: Any) -> Tensor:
        """Size-1 dimensions repeated with stride 0 (a view; writing into it is refused)."""
        return op("expand")(self, *sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        """``expand(other.shape)``."""
        return op("expand")(self, other.shape)

    def unsqueeze(self, dim: builtins.int) -> Tensor:
        """A new size-1 dimension at ``dim`` (a view)."""
        return op("unsqueeze")(self, dim)

    def squeeze(self, dim: Any = None) -> Tensor:
        """Size-1 dimensions removed (a view)."""
        return op("squeeze")(self, dim)

    def narrow(self, dim: builtins.int, start: builtins.int, length: builtins.int) -> Tensor:
        """Elements ``start..start+length`` of ``dim`` (a view)."""
        return op("narrow")(self, dim, start, length)

    def select(self, dim: builtins.int, index: builtins.int) -> Tensor:
        """Index ``index`` of ``dim``, removing it (a view)."""
        return op("select")(self, dim, index)

    def unbind(self, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """All slices along ``dim`` (multi-output views: refuse in-place with grad on)."""
        return op_many("unbind")(self, dim)

    def split(self, split_size: Any, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """Pieces of ``split_size`` (or the given sizes) along ``dim`` (multi-output views)."""
        return op_many("split")(self, split_size, dim)

    def chunk(self, chunks: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """``chunks`` nearly equal pieces along ``dim`` (multi-output views)."""
        return op_many("chunk")(self, chunks, dim)
