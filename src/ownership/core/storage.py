"""Storage and version counter: the memory a tensor reads, and the count of writes it has seen.

A :class:`Storage` is one flat numpy buffer; a tensor and all its views, ``detach()`` and
``.data`` aliases read the same one. A :class:`VersionCounter` belongs to the tensor, as in
torch: views and ``detach()`` share it, ``.data`` gets a fresh one over the same memory, which is
exactly why mutations through ``.data`` go unnoticed by autograd.

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

_INFERENCE = inference_mode._state  # read for every new tensor: one attribute lookup less
_new = object.__new__


class VersionCounter:
    """How many in-place writes a tensor, its views and its ``detach()`` aliases have seen.

    As in torch, the counter belongs to the tensor, not to its memory: a view and ``detach()``
    share their source's counter object; ``.data``, ``from_numpy`` and every new tensor get a new
    one, even over memory that another tensor already counts. :meth:`bump` is the only place a
    version moves (:meth:`bump_keyed` too, for a write torch counts through another argument).
    """

    __slots__ = ("value", "writes")
    #: Whether its tensor is an inference tensor (torch's dispatch keys: no autograd, its views
    #: are inference leaves, it cannot be saved for backward).
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
        """A new counter of the same kind (what ``.data`` gets): an inference tensor's alias is
        an inference tensor too (:meth:`inference_alias`)."""
        return self.inference_alias() if self.inference else VersionCounter()

    def shared(self) -> VersionCounter:
        """The counter ``detach()`` gives its alias: this one, but an inference tensor's alias
        gets its own (:meth:`inference_alias`)."""
        return self.inference_alias() if self.inference else self

    @staticmethod
    def inference_alias() -> VersionCounter:
        """The counter of ``detach()`` or ``.data`` of an inference tensor: none inside
        inference mode; outside it, torch gives the alias a counter of its own, from 0, so it can
        be written in place (its memory is the inference tensor's), though it is still an
        inference tensor (:class:`InferenceAliasCounter`)."""
        return InferenceCounter() if _INFERENCE.enabled else InferenceAliasCounter()

    def bump(self) -> None:
        """Record one in-place write (torch's ``VariableVersion::bump``)."""
        self.value += 1

    def bump_keyed(self) -> None:
        """Record one in-place write that torch's ADInplaceOrView kernel sees through another
        argument of the op, a normal tensor, whose dispatch keys the op's are the union of: so
        counted even inside inference mode, by every counter that counts at all (an inference
        tensor's ``detach()``, a tensor given inference ``.data``), not only by a normal one's."""
        self.bump()


class InferenceCounter(VersionCounter):
    """The mark of an inference tensor's storage: torch keeps no version for it (the value is
    never shown: ``Tensor._version`` raises).

    Bumping it outside inference mode raises torch's error. As in torch, the bump comes after
    the write, so the refused in-place op has already changed the values.
    """

    __slots__ = ("_count",)
    inference = True
    tracked = False

    def __init__(self) -> None:
        self._count = 0
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


class RekeyedCounter(VersionCounter):
    """The counter of a tensor given a ``.data`` of the other kind (normal or inference): torch's
    ``set_data`` takes the new data's dispatch keys but keeps the tensor's own version counter.
    So ``inference`` is the data's, the versions are ``counter``'s (shared with the tensor's
    earlier views and aliases): a normal tensor given inference data in inference mode is an
    inference tensor whose ``_version`` still reads, whose writes in inference mode go uncounted
    (no key counts them) and whose writes outside it count; an inference tensor given normal
    data is not one, but has no version to read or bump."""

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
        """Count a write through ``counter``, none in inference mode when marked as inference."""
        if not (self.inference and inference_mode._state.enabled):
            self.counter.bump()

    def bump_keyed(self) -> None:
        """Count a write through ``counter``, in any mode (see :meth:`VersionCounter.bump_keyed`)."""
        self.counter.bump()

    @property
    def writes(self) -> list[tuple[int, Any]] | None:
        return self.counter.writes

    @writes.setter
    def writes(self, writes: list[tuple[int, Any]] | None) -> None:
        self.counter.writes = writes


def rekeyed(counter: VersionCounter, inference: bool) -> VersionCounter:
    """The counter of the tensor counted by ``counter`` once given a ``.data`` that is an
    inference tensor or not (``inference``): its own counter, marked as the data is."""
    own = counter.counter if isinstance(counter, RekeyedCounter) else counter
    return own if own.inference == inference else RekeyedCounter(own, inference)


class InferenceAliasCounter(VersionCounter):
    """The counter of an inference tensor's ``detach()`` or ``.data`` made outside inference
    mode: it counts (``_version``, in-place writes allowed), but the alias is an inference
    tensor (``is_inference()``; its views are, without a counter, as torch's). As every
    inference tensor's, its writes inside inference mode go uncounted (no dispatch key of its
    counts them; :class:`RekeyedCounter` alike): only those made outside it move the version."""

    __slots__ = ()
    inference = True

    def bump(self) -> None:
        """Count a write made outside inference mode."""
        if not _INFERENCE.enabled:
            VersionCounter.bump(self)

    def bump_keyed(self) -> None:
        """Count a write, in any mode (see :meth:`VersionCounter.bump_keyed`)."""
        VersionCounter.bump(self)


class Storage:
    """A 1-D contiguous numpy buffer: the memory every view, ``detach()`` and ``.data`` alias of
    a tensor reads (``untyped_storage()``).

    The flat buffer of a freshly computed array is made on first use (most results are never
    viewed), from ``source``, a C- or F-contiguous array, flattened in its memory order.
    """

    __slots__ = ("_buffer", "_source")

    def __init__(self, buffer: NDArray[Any] | None, source: NDArray[Any] | None = None) -> None:
        self._buffer = buffer
        self._source = source

    @property
    def buffer(self) -> NDArray[Any]:
        """The flat 1-D array every view of this storage is taken from."""
        buf = self._buffer
        if buf is None:
            assert self._source is not None
            src = self._source
            buf = src.ravel(order="K")  # its memory, in memory order: a view of a dense array
            if buf.size and not np.may_share_memory(buf, src):  # never a copy: its memory
                raise AssertionError("a storage's array does not fill its memory")
            self._buffer = buf
            self._source = None
        return buf

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


def allocation_failed(nbytes: int) -> RuntimeError:
    """torch's error when its CPU allocator cannot give a storage ``nbytes`` bytes (numpy's own
    ``MemoryError`` never reaches a user: ``ownership.core.op_registry.quiet``).

    >>> print(allocation_failed(2**49))
    [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 562949953421312 bytes. Error code 12 (Cannot allocate memory)
    """
    return RuntimeError(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
        f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)"
    )


def allocation_refused(error: MemoryError) -> BaseException:
    """What the user sees of numpy's ``error``: for an array numpy could not allocate (its error
    names the array's shape and dtype), torch's :func:`allocation_failed` of its bytes; any
    other ``MemoryError`` as it is."""
    shape, dtype = getattr(error, "shape", None), getattr(error, "dtype", None)
    if shape is None or dtype is None:
        return error
    return allocation_failed(math.prod(shape) * dtype.itemsize)


def storage_over(arr: NDArray[Any]) -> Storage:
    """The storage of a tensor whose array is ``arr``, whose elements fill their memory exactly
    (``layout.fresh_layout``): that memory."""
    storage = _new(Storage)  # ``Storage(None, arr)`` without the constructor's call
    storage._buffer = None
    storage._source = arr
    return storage


def is_engine_tensor(obj: Any) -> bool:
    """Whether ``obj`` is an ownership tensor, as the layers that may not import the Tensor class
    ask it: every tensor has the slot ``_lazy_storage`` (asking for ``_storage`` would make a
    fresh result's storage as a side effect)."""
    return hasattr(obj, "_lazy_storage")
