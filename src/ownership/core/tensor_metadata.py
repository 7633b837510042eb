"""Tensor metadata: sizes, strides, offset, element counts, the storage's address and the device.

Everything here reads the tensor's numpy array and offset; nothing makes a tensor. Inherited by
:class:`~ownership.core.tensor.Tensor`.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from ownership.core import devices, layout
from ownership.core.binder import Signatures
from ownership.core.layout import Size

if TYPE_CHECKING:
    from ownership.core.dtypes import dtype as DType
    from ownership.core.storage import Storage
    from ownership.core.tensor import Tensor


def _invalid_device_arguments(type: Any, index: Any) -> TypeError:
    """torch's error for ``device(...)`` arguments that fit neither of its signatures."""
    if isinstance(type, device):
        return TypeError("device(): argument 'type' (position 1) must be str, not torch.device")
    return TypeError(
        f"device() received an invalid combination of arguments - got "
        f"({builtins.type(type).__name__}), but expected one of:\n"
        " * (torch.device device)\n"
        "      didn't match because some of the arguments have invalid types: "
        f"(!{builtins.type(type).__name__}!)\n"
        " * (str type, int index = -1)\n"
    )


class device:
    """``torch.device``: where a tensor lives. Any device torch can name can be made, as in torch
    (``device("cuda")`` is a name; ``ownership.core.devices.parse_device`` is the reading); the
    engine's tensors live on the CPU only, and placing one elsewhere gets torch's error on a
    machine without that device (``ownership.core.devices.device``).

    >>> device("cpu"), device("cpu", 1), str(device("cpu:0")), device("cuda", 0)
    (device(type='cpu'), device(type='cpu', index=1), 'cpu:0', device(type='cuda', index=0))
    """

    __slots__ = ("index", "type")
    type: str
    index: int | None

    def __init__(self, type: Any, index: Any = None) -> None:
        if isinstance(type, device) and index is None:
            type, index = type.type, type.index
        elif not isinstance(type, str | int) or isinstance(type, bool):
            raise _invalid_device_arguments(type, index)
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            got = builtins.type(index).__name__
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not {got}")
        if isinstance(type, str) and index is not None and ":" in type:
            raise RuntimeError(
                "type (string) must not include an index because index was passed explicitly: "
                f"{type}"
            )
        kind, number = devices.parse_device(type)
        if isinstance(index, int) and index < 0:
            raise RuntimeError("Device index must not be negative")
        object.__setattr__(self, "type", kind)
        object.__setattr__(self, "index", number if number is not None else index)

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return type(other).__name__ == "device" and str(other) == str(self)

    def __hash__(self) -> int:
        return hash(str(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (str(self),))


Device = device  # the engine's older name


CPU = object.__new__(device)  # every tensor's device (made without the checks, loaded later)
object.__setattr__(CPU, "type", "cpu")
object.__setattr__(CPU, "index", None)


SIZE = Signatures("size", "(int dim = None)")
"""``size``'s declaration, as torch prints its signature (bound by the binder)."""


class TensorMetadata:
    """The metadata methods of :class:`~ownership.core.tensor.Tensor` (``shape``, ``stride()``,
    ``data_ptr()``, ``device``...)."""

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

    def size(self, *args: Any, **kwargs: Any) -> Any:
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

    def dim(self) -> builtins.int:
        """Number of dimensions."""
        return self._data.ndim

    def numel(self) -> builtins.int:
        """Number of elements."""
        return int(self._data.size)

    def nelement(self) -> builtins.int:
        """Number of elements."""
        return int(self._data.size)

    def element_size(self) -> builtins.int:
        """Bytes per element."""
        return int(self._data.itemsize)

    def stride(self, dim: builtins.int | None = None) -> Any:
        """Strides in elements (all of them, or of one dimension)."""
        arr = self._data
        if arr.size == 0 and self._base is None and not layout.kept_strides(arr):
            st = layout.contiguous_strides(arr.shape)  # numpy reports 0 strides for empty arrays
        else:
            item = arr.itemsize
            st = tuple([s // item for s in arr.strides])  # a list comprehension: no generator
        if dim is None:
            return st
        return st[layout.wrap_dim(dim, self._data.ndim)]

    def storage_offset(self) -> builtins.int:
        """Offset of element 0 in the storage, in elements."""
        return self._offset

    def data_ptr(self) -> builtins.int:
        """Byte address of element 0 (equal for aliases of the same element)."""
        return self._storage.address() + self._offset * self._data.itemsize

    def untyped_storage(self) -> Storage:
        """The storage (buffer and version counter); ``data_ptr()`` is equal for all aliases."""
        return self._storage

    def is_contiguous(self) -> builtins.bool:
        """Row-major with torch's rule (size-1 dimensions do not matter)."""
        return layout.is_contiguous(self._data.shape, self.stride())

    def is_floating_point(self) -> builtins.bool:
        """Whether the dtype is a floating dtype."""
        return builtins.bool(self.dtype.is_floating_point)

    @property
    def device(self) -> Device:
        """Always the CPU."""
        return CPU

    @property
    def is_cuda(self) -> builtins.bool:
        """Always False."""
        return False

    def _geometry(self) -> tuple[tuple[builtins.int, ...], tuple[builtins.int, ...], int]:
        return (tuple(self._data.shape), self.stride(), self._offset)
