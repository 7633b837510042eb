"""The Tensor: a numpy view over a :class:`~ownership.core.storage.Storage`, plus autograd metadata.

Its storage, version counter, ``_base`` and node are here; its metadata and autograd methods are
inherited, its op methods declared in :mod:`ownership.ops.methods`.

>>> import numpy as np
>>> t = Tensor._wrap(np.array([1.0, 2.0], dtype=np.float32))
>>> t, t._version, t.is_leaf
(tensor([1., 2.]), 0, True)
"""

from __future__ import annotations

import builtins
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, grad_mode, inference_mode, layout, op_registry
from ownership.core.autograd.node import NO_ACCUMULATOR, Node
from ownership.core.autograd.view_history import (
    PLAIN,
    CreationMeta,
    propagate_creation_meta,
    refresh_view_grad_fn,
)
from ownership.core.declared_methods import DeclaredMethods
from ownership.core.dtypes import dtype as DType
from ownership.core.storage import InferenceCounter, Storage, VersionCounter, storage_over
from ownership.core.tensor_autograd import TensorAutograd
from ownership.core.tensor_metadata import TensorMetadata

if TYPE_CHECKING:
    from ownership.core.op_table import CoreOps
ops: CoreOps[Tensor] = op_registry.ops
_INFERENCE = inference_mode.THREADS  # how many threads are in inference mode
_NDARRAY = np.ndarray
_new = object.__new__
_GRAD = grad_mode._state


def _numpy_repr(
    values: NDArray[Any], floating: builtins.bool, dtype: str | None, grad: str | None
) -> str:
    """:data:`tensor_repr` of core alone: numpy's printing."""
    shown = np.array2string(values, separator=", ", prefix="tensor(")
    return "tensor(" + ", ".join([shown, *(s for s in (dtype, grad) if s)]) + ")"


tensor_repr: Callable[[NDArray[Any], builtins.bool, str | None, str | None], str] = _numpy_repr
"""How ``repr`` prints a tensor's values and the suffixes ``Tensor.__repr__`` decides, a seam:
``ownership.installation.install()`` fills it with torch's format (parity's)."""


class Absent:
    """A name declared absent on :class:`Tensor`, left out of ``dir()`` (a seam: parity's)."""

    __slots__ = ()


def _declared_missing(cls: type, name: str) -> builtins.bool:
    """Whether ``name`` is, for ``cls``, declared :class:`Absent`."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return isinstance(klass.__dict__[name], Absent)
    return False


class TensorMeta(type):
    """The class of :class:`Tensor`: ``dir()`` of the class leaves out :class:`Absent` names."""

    def __dir__(cls) -> list[str]:
        return [name for name in type.__dir__(cls) if not _declared_missing(cls, name)]


class Tensor(TensorMetadata, TensorAutograd, DeclaredMethods, metaclass=TensorMeta):
    """An n-dimensional array that may share memory with others and may record a graph."""

    # fmt: off
    __slots__ = (
        "__dict__", "__weakref__", "_acc", "_base", "_creation_meta", "_data", "_grad",
        "_grad_dtype", "_history", "_lazy_counter", "_lazy_storage", "_leftover_size", "_offset",
        "_output_nr", "_requires_grad", "_retains_grad", "_view_version", "dtype",
    )
    # fmt: on
    __array_priority__ = 1000

    _lazy_storage: Storage | None
    _history: Node | None  # read and written as ``_grad_fn`` (the property after the class)
    _grad: Tensor | None
    _grad_dtype: DType | None
    _creation_meta: CreationMeta  # a view's only, as ``_view_version``
    _view_version: builtins.int
    _acc: Any  # a weak reference to a leaf's accumulator

    @staticmethod
    def _wrap(arr: Any, dtype: DType | None = None) -> Tensor:
        """A new tensor (version 0) over a freshly computed array, cast to ``dtype`` if given."""
        if type(arr) is not _NDARRAY:
            arr = np.asarray(arr) if dtype is None else np.asarray(arr, dtype=dtype.np)
        elif dtype is not None and arr.dtype is not dtype.np and arr.dtype != dtype.np:
            arr = arr.astype(dtype.np)
        if dtype is None:
            dtype = dtypes.from_numpy_dtype(arr.dtype)
        if not arr.flags.forc:
            arr = layout.fresh_layout(arr)
        inference = _INFERENCE.count and inference_mode._state.enabled
        return Tensor._plain(Tensor, arr, None, 0, dtype, InferenceCounter() if inference else None)

    @staticmethod
    def _plain(
        cls: type[Tensor],
        arr: NDArray[Any],
        storage: Storage | None,
        offset: builtins.int,
        dtype: DType,
        counter: VersionCounter | None,
    ) -> Tensor:
        """A bare ``cls`` object over ``arr``: a non-view leaf, no grad, no graph."""
        t = _new(cls)
        t._data = arr
        t._lazy_storage = storage
        t._lazy_counter = counter
        t._offset = offset
        t.dtype = dtype
        t._requires_grad = False
        t._history = None
        t._output_nr = 0
        t._grad = None
        t._base = None
        t._retains_grad = False
        t._acc = NO_ACCUMULATOR
        return t

    def _alias_parts(self) -> tuple[Any, ...]:
        """``parts[0](*parts[1:])`` is a new alias of this tensor (see ``autograd.saved``)."""
        storage, counter = self._storage, self._version_counter
        return (Tensor._plain, Tensor, self._data, storage, self._offset, self.dtype, counter)

    def _alias(self, counter: VersionCounter, cls: type[Tensor] | None = None) -> Tensor:
        """A new non-view tensor over the same memory and strides, tracked by ``counter``."""
        data = self._data
        if not data.size and self._base is not None:
            data = layout.empty_strided(data.shape, self._stride(), data.dtype)
        alias = Tensor._plain(cls or Tensor, data, self._storage, self._offset, self.dtype, counter)
        if not data.ndim and hasattr(self, "_leftover_size"):  # torch's shallow copy copies it
            alias._leftover_size = self._leftover_size
        return alias

    def _view(
        self,
        shape: Sequence[builtins.int],
        strides: Sequence[builtins.int],
        offset: builtins.int,
        data: NDArray[Any] | None = None,
        recorded: builtins.bool = False,
    ) -> Tensor:
        """A view of this tensor's storage, sharing its version counter (``_base``: the root).

        ``recorded``: the caller records the view (grad mode on, a normal tensor)."""
        storage, counter = self._storage, self._version_counter
        if data is None:
            data = layout.strided(storage.buffer, shape, strides, offset)
        t = Tensor._plain(Tensor, data, storage, offset, self.dtype, counter)
        base = self._base
        meta = self._creation_meta if base is not None else PLAIN
        if not recorded:
            if counter.inference:  # torch tracks no view of an inference tensor: a new leaf
                if counter.tracked:  # an inference alias that counts: its view does not
                    t._lazy_counter = InferenceCounter()
                return t
            if _INFERENCE.count and inference_mode._state.enabled:
                meta = CreationMeta.INFERENCE_MODE
            elif not _GRAD.enabled:
                meta = propagate_creation_meta(meta, CreationMeta.NO_GRAD_MODE)
        t._base, t._creation_meta = base if base is not None else self, meta
        t._view_version = counter.value
        return t

    @property
    def _storage(self) -> Storage:
        """The storage (made at its first read)."""
        storage = self._lazy_storage
        if storage is None:
            storage = self._lazy_storage = storage_over(self._data)
        return storage

    @property
    def _version_counter(self) -> VersionCounter:
        """The version counter (made at its first read, at version 0)."""
        counter = self._lazy_counter
        if counter is None:
            counter = self._lazy_counter = VersionCounter()
        return counter

    @property
    def _version(self) -> builtins.int:
        """The version counter this tensor shares with its views and ``detach()`` aliases."""
        counter = self._lazy_counter
        if counter is None:
            return 0
        if not counter.tracked:
            raise RuntimeError(inference_mode.VERSION_MESSAGE)
        return counter.value

    def _node(self) -> Node | None:
        """The node that created this tensor (a view written through since: a new one first)."""
        counter = self._lazy_counter  # a view's is made with it
        if self._base is not None and counter is not None and self._view_version != counter.value:
            refresh_view_grad_fn(self)
        return self._history

    def _detached_unseen(self) -> Tensor:
        """``detach()`` of a gradient only the caller holds (itself, if a plain bare leaf)."""
        if (
            type(self) is Tensor
            and self._base is None
            and self._history is None
            and not self._requires_grad
            and self._grad is None
            and not self._retains_grad
            and self._output_nr == 0
            and not weakref.getweakrefcount(self)
            and not self.__dict__
        ):
            return self
        return self._detach()

    def _is_view(self) -> builtins.bool:
        """Whether this tensor is a view of another (it has a ``_base``)."""
        return self._base is not None

    @property
    def T(self) -> Tensor:
        """All dimensions reversed (a view)."""
        return ops.T(self)

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped (a view)."""
        return ops.mT(self)

    def __hash__(self) -> builtins.int:
        return id(self)

    def __dir__(self) -> list[str]:
        """Python's list, less the names declared :class:`Absent`."""
        own, kind = self.__dict__, type(self)
        return [n for n in object.__dir__(self) if n in own or not _declared_missing(kind, n)]

    def _repr(self) -> str:
        """``repr()`` (the Tensor's ``__repr__`` calls it through the op table)."""
        d = self.dtype
        # torch's rule: int64 and bool go unnamed only where an element shows them
        shown = self._data.size != 0 and (d is dtypes.int64 or d is dtypes.bool_)
        default = d is dtypes.get_default_dtype() or shown
        grad: str | None = None
        try:
            fn = self._node()
        except RuntimeError:  # a view whose history may not be rebuilt: torch prints <Invalid>
            grad, fn = "grad_fn=<Invalid>", None
        if fn is not None:
            grad = f"grad_fn=<{fn.name().rsplit('::', 1)[-1]}>"
        elif grad is None and self.requires_grad:
            grad = "requires_grad=True"
        return tensor_repr(
            self._data, d.is_floating_point, None if default else f"dtype={d!r}", grad
        )


def _refuse_deletion(t: Tensor) -> None:
    raise RuntimeError("Deletion of _grad_fn not allowed. Detach tensor instead!")


# ``_grad_fn``: the slot ``_history`` through a property whose deleter refuses, as torch's does
_HISTORY: Any = Tensor.__dict__["_history"]  # the slot's member descriptor
setattr(  # noqa: B010 - the class body declares the attribute's type
    Tensor, "_grad_fn", property(_HISTORY.__get__, _HISTORY.__set__, _refuse_deletion)
)
