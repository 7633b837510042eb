"""Tensor metadata: sizes, strides, offset, the storage's address, the device (Tensor's base).

The methods have private names (``_stride``), which core and the ops call: the Tensor's public
``stride()`` is declared in ``ownership.ops.methods`` and calls ``_stride`` through the op table,
where an observer sees it (:func:`~ownership.core.op_registry.watch`), as torch's function mode
sees ``stride``.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from ownership.core import layout
from ownership.core.binder import Signatures
from ownership.core.layout import Size

if TYPE_CHECKING:
    from ownership.core.dtypes import dtype as DType
    from ownership.core.storage import Storage
    from ownership.core.tensor import Tensor


CPU: Any = "cpu"
"""The device of every tensor, a seam: ``ownership.installation.install()`` puts
``torch.device('cpu')`` here; core alone names it ``'cpu'``."""

SIZE = Signatures("size", "(int dim = None)")
"""``size``'s declaration, as torch prints its signature."""


class TensorMetadata:
    """The metadata methods of :class:`~ownership.core.tensor.Tensor`."""

    __slots__ = ()
    _data: NDArray[Any]
    _offset: builtins.int
    _base: Tensor | None
    dtype: DType
    if TYPE_CHECKING:

        @property
        def _storage(self) -> Storage: ...

    @property
    def shape(self) -> Size:
        """The sizes, as a ``torch.Size``."""
        return Size(self._data.shape)

    def _size(self, *args: Any, **kwargs: Any) -> Any:
        """``shape``, or the size of one dimension: ``size(dim=None)`` (``axis=`` too)."""
        if kwargs or len(args) > 1 or (args and type(args[0]) is not builtins.int):
            args = (SIZE.parse(args, kwargs)[1]["dim"],)
        if not args or args[0] is None:
            return Size(self._data.shape)
        return self._data.shape[layout.wrap_dim(args[0], self._data.ndim)]

    @property
    def ndim(self) -> builtins.int:
        """Number of dimensions."""
        return self._data.ndim

    def _dim(self) -> builtins.int:
        """Number of dimensions (:attr:`ndim`)."""
        return self._data.ndim

    def _numel(self) -> builtins.int:
        """Number of elements (``nelement()`` too)."""
        return int(self._data.size)

    def _element_size(self) -> builtins.int:
        """Bytes per element."""
        return int(self._data.itemsize)

    def _stride(self, dim: builtins.int | None = None) -> Any:
        """Strides in elements (all of them, or of one dimension)."""
        arr = self._data
        if arr.size == 0 and self._base is None and not layout.kept_strides(arr):
            st = layout.contiguous_strides(arr.shape)  # numpy reports 0 strides for empty arrays
        else:
            st = tuple([s // arr.itemsize for s in arr.strides])
        return st if dim is None else st[layout.wrap_dim(dim, arr.ndim)]

    def _storage_offset(self) -> builtins.int:
        """Offset of element 0 in the storage, in elements."""
        return self._offset

    def _data_ptr(self) -> builtins.int:
        """Byte address of element 0 (equal for aliases of the same element)."""
        return self._storage.address() + self._offset * self._data.itemsize

    def _untyped_storage(self) -> Storage:
        """The storage (its ``data_ptr()`` is equal for all aliases)."""
        return self._storage

    def _is_contiguous(self) -> builtins.bool:
        """Row-major with torch's rule (size-1 dimensions do not matter)."""
        return layout.is_contiguous(self._data.shape, self._stride())

    def _is_floating_point(self) -> builtins.bool:
        """Whether the dtype is a floating dtype."""
        return builtins.bool(self.dtype.is_floating_point)

    @property
    def device(self) -> Any:
        """Always the CPU (the seam ``CPU``)."""
        return CPU

    @property
    def is_cuda(self) -> builtins.bool:
        """Always False."""
        return False

    def _geometry(self) -> tuple[tuple[builtins.int, ...], tuple[builtins.int, ...], int]:
        return (tuple(self._data.shape), self._stride(), self._offset)
