"""``copy.deepcopy`` and ``pickle`` of a tensor, as torch does them.

Both rebuild the tensor the way torch does, with ``set_`` on a new storage: the copy is a leaf at
version 1 with the original's offset, sizes and strides over a copy of the *whole* storage.

- ``deepcopy`` refuses a non-leaf (torch's message), copies ``.grad`` and ``requires_grad``, and
  copies each storage once per ``deepcopy`` call: a base and its view copied together still share
  memory (each with its own version counter, as after torch's ``set_``).
- ``pickle`` keeps ``requires_grad`` but not ``.grad`` nor the graph (a non-leaf comes back as a
  leaf), and pickles each tensor's storage separately, as torch does.
- ``copy.copy`` rebuilds from the same reduction without pickling it: the copy is a new leaf (at
  version 1, with its own counter, ``requires_grad`` kept, no ``.grad``) over the *same* storage,
  as torch's (its storage argument is the storage itself; :class:`StorageArgument`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import layout
from ownership.core.dtypes import dtype as DType
from ownership.core.storage import Storage, VersionCounter

DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
    "the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
)


class StorageArgument:
    """The storage a reduced tensor is rebuilt over: ``copy.copy`` hands it to
    :func:`rebuild_tensor` as it is (the copy shares the storage), ``pickle`` writes a copy of its
    memory, one per tensor (torch pickles a new storage wrapper per tensor: two views of one
    storage come back apart)."""

    __slots__ = ("storage",)

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def __reduce__(self) -> tuple[Any, tuple[NDArray[Any]]]:
        return (_argument_over, (self.storage.buffer.copy(),))


def _argument_over(buffer: NDArray[Any]) -> StorageArgument:
    return StorageArgument(Storage(buffer))


def rebuild_tensor(
    cls: Any,
    source: StorageArgument,
    offset: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    dtype: DType,
    requires_grad: bool,
    state: dict[str, Any] | None = None,
) -> Any:
    """A leaf of class ``cls`` at version 1 over ``source``'s storage (torch's ``set_`` on a new
    tensor): an inference tensor when rebuilt in inference mode, as every new tensor is there."""
    counter = VersionCounter.new()
    counter.bump()  # the write of torch's set_ (an inference tensor keeps no version)
    storage = source.storage
    arr = layout.strided(storage.buffer, shape, strides, offset)
    t = cls._plain(cls, arr, storage, offset, dtype, counter)
    t._requires_grad = requires_grad
    if state:
        t.__dict__.update(state)
    return t


def _whole(t: Any) -> tuple[NDArray[Any], int, tuple[int, ...], tuple[int, ...]]:
    """The flat buffer behind ``t`` with ``t``'s offset, sizes and strides into it."""
    return t._storage.buffer, t._offset, tuple(t._data.shape), tuple(t.stride())


def deepcopy_tensor(t: Any, memo: dict[Any, Any]) -> Any:
    """torch's ``Tensor.__deepcopy__``."""
    if not t.is_leaf:
        raise RuntimeError(DEEPCOPY_NON_LEAF)
    if id(t) in memo:
        return memo[id(t)]
    buffer, offset, shape, strides = _whole(t)
    copies = memo.setdefault("ownership.storages", {})  # one copy per storage per deepcopy
    entry = copies.get(id(buffer))
    if entry is None:
        entry = copies[id(buffer)] = (buffer, np.array(buffer, copy=True))  # keeps id(buffer) alive
    state = getattr(t, "__dict__", None)
    new = rebuild_tensor(type(t), _argument_over(entry[1]), offset, shape, strides, t.dtype, False)
    if t.requires_grad:
        new._requires_grad = True
    if t._grad is not None:
        new._grad = deepcopy_tensor(t._grad, memo)
    if state:
        import copy

        new.__dict__.update(copy.deepcopy(state, memo))
    memo[id(t)] = new
    return new


def reduce_tensor(t: Any) -> tuple[Any, tuple[Any, ...]]:
    """torch's ``Tensor.__reduce_ex__``: storage, offset, sizes, strides and ``requires_grad``."""
    _, offset, shape, strides = _whole(t)
    state = getattr(t, "__dict__", None) or None
    source = StorageArgument(t._storage)
    return (
        rebuild_tensor,
        (type(t), source, offset, shape, strides, t.dtype, t.requires_grad, state),
    )
