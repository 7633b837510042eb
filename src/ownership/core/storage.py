"""Storage and version counter: the memory a tensor reads, and the count of writes it has seen.

A tensor, its views, ``detach()`` and ``.data`` read one :class:`Storage`; views and ``detach()``
share its :class:`VersionCounter`, ``.data`` gets a fresh one (so autograd misses its writes).

>>> import numpy as np
>>> s, c = Storage(np.zeros(4, dtype=np.float32)), VersionCounter()
>>> c.bump()
>>> s.buffer.shape, c.value, c.fresh().value
((4,), 1, 0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import inference_mode

_INFERENCE = inference_mode._state
_new = object.__new__


class VersionCounter:
    """How many in-place writes a tensor, its views and its ``detach()`` aliases have seen."""

    __slots__ = ("value", "writes")
    #: Whether its tensor is an inference tensor (no autograd; its views are inference leaves).
    inference = False
    #: Whether it counts versions (an inference tensor's does not: ``_version`` raises).
    tracked = True

    def __init__(self) -> None:
        self.value = 0
        #: ``(version, stack)`` of recent writes, kept only in anomaly mode (else None).
        self.writes: list[tuple[int, Any]] | None = None

    @staticmethod
    def new() -> VersionCounter:
        """A counter for a new tensor: an inference one inside inference mode."""
        return InferenceCounter() if _INFERENCE.enabled else VersionCounter()

    def fresh(self) -> VersionCounter:
        """A new counter of the same kind (what ``.data`` gets)."""
        return self.shared() if self.inference else VersionCounter()

    def shared(self) -> VersionCounter:
        """The counter ``detach()`` gives its alias: this one (an inference tensor's: a new one)."""
        if not self.inference:
            return self
        return InferenceCounter() if _INFERENCE.enabled else InferenceAliasCounter()

    def bump(self) -> None:
        """Record one in-place write (torch's ``VariableVersion::bump``)."""
        self.value += 1

    def bump_keyed(self) -> None:
        """Record one in-place write torch counts through another (normal) argument, in any mode."""
        VersionCounter.bump(self)


class InferenceCounter(VersionCounter):
    """An inference tensor's: no version, and a bump outside inference mode raises torch's error."""

    __slots__ = ("_count",)
    inference = True
    tracked = False

    def __init__(self) -> None:
        self._count = 0
        self.writes = None

    @property
    def value(self) -> int:
        """The number of writes made in inference mode (never shown)."""
        return self._count

    @value.setter
    def value(self, count: int) -> None:
        if not inference_mode._state.enabled:
            raise RuntimeError(inference_mode.INPLACE_MESSAGE)
        self._count = count


class RekeyedCounter(VersionCounter):
    """A tensor's given a ``.data`` of the other kind: the data's ``inference``, its versions."""

    __slots__ = ("counter", "inference", "tracked")

    def __init__(self, counter: VersionCounter, inference: bool) -> None:
        self.counter = counter
        self.inference = inference
        self.tracked = counter.tracked

    @property
    def value(self) -> int:
        if not self.tracked and not self.inference:
            raise RuntimeError(inference_mode.VERSION_MESSAGE)
        return self.counter.value

    @value.setter
    def value(self, count: int) -> None:
        self.counter.value = count

    def bump(self) -> None:
        """Count a write through ``counter`` (none in inference mode when marked inference)."""
        if not self.inference:
            self.counter.bump_keyed()
        elif not inference_mode._state.enabled:
            self.counter.bump()

    def bump_keyed(self) -> None:
        """Count a write through ``counter``, in any mode."""
        self.counter.bump()

    @property
    def writes(self) -> list[tuple[int, Any]] | None:
        return self.counter.writes

    @writes.setter
    def writes(self, writes: list[tuple[int, Any]] | None) -> None:
        self.counter.writes = writes


def rekeyed(counter: VersionCounter, inference: bool) -> VersionCounter:
    """``counter``'s tensor's once given a ``.data`` that is an inference tensor or not."""
    own = counter.counter if isinstance(counter, RekeyedCounter) else counter
    return own if own.inference == inference else RekeyedCounter(own, inference)


class InferenceAliasCounter(VersionCounter):
    """An inference alias's made outside inference mode: its writes outside the mode count."""

    __slots__ = ()
    inference = True

    def bump(self) -> None:
        """Count a write made outside inference mode."""
        if not _INFERENCE.enabled:
            VersionCounter.bump(self)


class Storage:
    """A 1-D numpy buffer: the memory a tensor and its aliases read (``untyped_storage()``)."""

    __slots__ = ("_buffer", "_source")

    def __init__(self, buffer: NDArray[Any] | None, source: NDArray[Any] | None = None) -> None:
        self._buffer = buffer
        self._source = source

    @property
    def buffer(self) -> NDArray[Any]:
        """The flat 1-D array every view of this storage is taken from."""
        buf = self._buffer
        if buf is None:
            src = self._source
            assert src is not None
            buf = src.ravel(order="K")  # a view of a dense array, in memory order
            if buf.size and not np.may_share_memory(buf, src):
                raise AssertionError("a storage's array does not fill its memory")
            self._buffer, self._source = buf, None
        return buf

    def address(self) -> int:
        """The byte address of element 0 of the buffer (``untyped_storage().data_ptr()``)."""
        return int(self.buffer.__array_interface__["data"][0])

    def nbytes(self) -> int:
        """Size of the buffer in bytes (``size()`` too: an untyped storage counts bytes)."""
        return int(self.buffer.nbytes)

    data_ptr = address
    size = nbytes


def allocation_failed(nbytes: int) -> RuntimeError:
    """torch's error when its CPU allocator cannot give a storage ``nbytes`` bytes.

    >>> print(allocation_failed(2**49))
    [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 562949953421312 bytes. Error code 12 (Cannot allocate memory)
    """
    return RuntimeError(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
        f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)"
    )


def allocation_refused(error: MemoryError) -> BaseException:
    """What the user sees of numpy's ``error``: :func:`allocation_failed` for an array's."""
    shape, dtype = getattr(error, "shape", None), getattr(error, "dtype", None)
    if shape is None or dtype is None:
        return error
    return allocation_failed(math.prod(shape) * dtype.itemsize)


def storage_over(arr: NDArray[Any]) -> Storage:
    """The storage of a tensor whose array ``arr`` fills its memory exactly: that memory."""
    storage = _new(Storage)  # ``Storage(None, arr)``
    storage._buffer, storage._source = None, arr
    return storage


def is_engine_tensor(obj: Any) -> bool:
    """Whether ``obj`` is an ownership tensor (for layers that may not import the class)."""
    return hasattr(obj, "_lazy_storage")
