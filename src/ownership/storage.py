"""Storage: one flat numpy buffer plus the version counter every alias of it shares.

A :class:`Storage` is what a tensor and all its views point at. Its :class:`VersionCounter` is
bumped once by every in-place write through any alias. ``detach()`` shares the same Storage
object (and so the counter); ``.data`` makes a new Storage over the same buffer with a fresh
counter, which is exactly why mutations through ``.data`` go unnoticed by autograd.

>>> import numpy as np
>>> s = Storage(np.zeros(4, dtype=np.float32))
>>> s.counter.value, s.alias_with_new_counter().buffer is s.buffer
(0, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import inference_mode


class VersionCounter:
    """A mutable integer shared by all tensors that must see each other's in-place writes."""

    __slots__ = ("value", "writes")
    inference = False

    def __init__(self, value: int = 0) -> None:
        self.value = value
        #: ``(version, stack)`` of recent writes, kept only in anomaly mode (else None).
        self.writes: list[tuple[int, Any]] | None = None

    @staticmethod
    def new() -> VersionCounter:
        """A counter for a new storage: an inference one inside inference mode."""
        return InferenceCounter() if inference_mode._state.enabled else VersionCounter()

    def bump(self) -> None:
        """Record one in-place write."""
        self.value += 1


class InferenceCounter(VersionCounter):
    """The mark of an inference tensor's storage: torch keeps no version for it (the value is
    never shown: ``Tensor._version`` raises).

    Bumping it outside inference mode raises torch's error. As in torch, the bump comes after
    the write, so the refused in-place op has already changed the values.
    """

    __slots__ = ("_count",)
    inference = True

    def __init__(self, value: int = 0) -> None:
        self._count = value
        self.writes = None

    @property
    def value(self) -> int:
        """The number of writes made in inference mode (never shown to a learner)."""
        return self._count

    @value.setter
    def value(self, count: int) -> None:
        if not inference_mode._state.enabled:
            raise RuntimeError(inference_mode.INPLACE_MESSAGE)
        self._count = count


class Storage:
    """A 1-D contiguous numpy buffer and its version counter.

    The flat buffer of a freshly computed array is made on first use (most results are never
    viewed), from ``source``, a C-contiguous array (or the transpose of an F-contiguous one).
    """

    __slots__ = ("_buffer", "_source", "counter")

    def __init__(
        self,
        buffer: NDArray[Any] | None,
        counter: VersionCounter | None = None,
        source: NDArray[Any] | None = None,
    ) -> None:
        self._buffer = buffer
        self._source = source
        self.counter = VersionCounter.new() if counter is None else counter

    @property
    def buffer(self) -> NDArray[Any]:
        """The flat 1-D array every view of this storage is taken from."""
        buf = self._buffer
        if buf is None:
            assert self._source is not None
            buf = self._buffer = self._source.reshape(-1)
            self._source = None
        return buf

    def alias_with_new_counter(self) -> Storage:
        """The same memory, tracked by a new counter (what ``.data`` returns); an inference
        storage's alias is an inference one too."""
        counter = InferenceCounter() if self.counter.inference else None
        return Storage(self.buffer, counter)

    def address(self) -> int:
        """The byte address of element 0 of the buffer."""
        return int(self.buffer.__array_interface__["data"][0])

    def data_ptr(self) -> int:
        """The byte address of element 0 of the buffer (as ``untyped_storage().data_ptr()``)."""
        return self.address()

    def nbytes(self) -> int:
        """Size of the buffer in bytes."""
        return int(self.buffer.nbytes)

    def size(self) -> int:
        """Size of the buffer in bytes (an untyped storage counts bytes)."""
        return int(self.buffer.nbytes)


def storage_for(arr: NDArray[Any]) -> tuple[NDArray[Any], Storage]:
    """Wrap a freshly computed array: return (array, storage) where array views storage.buffer.

    C- and F-contiguous arrays are wrapped without copying (F order keeps torch's stride
    preservation for elementwise ops on transposed inputs); anything else is copied to C order.
    """
    flags = arr.flags
    if flags.c_contiguous:
        return arr, Storage(None, None, arr)
    if flags.f_contiguous:
        return arr, Storage(None, None, arr.T)
    arr = np.ascontiguousarray(arr)
    return arr, Storage(arr.reshape(-1))
