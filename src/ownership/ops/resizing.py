"""``resize_`` and ``resize_as_``: new sizes for a tensor in place, its storage grown when too small.

torch 2.13's rules (``aten/src/ATen/native/Resize.{h,cpp}``, ``resize_`` of
``torch/csrc/autograd/VariableTypeManual.cpp``), in their order:

- outside inference mode, a tensor that requires grad is refused, whatever the sizes;
- the same sizes change nothing: the strides stay (a transposed tensor stays transposed) and
  the version does not move;
- new sizes get contiguous strides from the same storage offset; the storage keeps its memory
  when it holds ``offset + numel`` elements (shrinking never frees), else it is reallocated to
  exactly that many, the old elements copied first and the new ones uninitialised. Every
  tensor sharing the storage (views, ``detach()``, ``.data`` aliases, the base of a resized
  view) then reads the new memory, as torch's share one ``StorageImpl``;
- memory lent by numpy (``from_numpy``) cannot grow; a tensor of no elements never grows its
  storage;
- a ``memory_format`` then lays the tensor out as asked, even at the same sizes
  (:mod:`ownership.ops.memory_formats`; ``resize_as_`` reads ``preserve_format`` as the format
  the template's strides suggest, ``resize_`` refuses it);
- the version goes up once, after the change, when the sizes changed and nothing was refused
  (an inference tensor outside inference mode is refused at that bump, its sizes already
  changed, as in torch).

A view stays a view of its base (``_base`` unchanged) and nothing is recorded: ``resize_`` has
no gradient. A graph tensor resized (in inference mode) keeps, in its node, the sizes it had:
backward checks its gradient against them (:func:`ownership.core.autograd.engine.validate_outputs`).

>>> import ownership
>>> x = ownership.arange(6.0)
>>> v = x[2:4]
>>> x.resize_(2, 5).shape, x._version, x.untyped_storage().nbytes()
(torch.Size([2, 5]), 1, 40)
>>> v.fill_(7.0)[0].item(), x[0, 2].item()
(7.0, 7.0)
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import inference_mode, layout, observers
from ownership.core.autograd.engine import note_shape_change
from ownership.core.autograd.saved import SavedTensor
from ownership.core.inplace_rules import written
from ownership.core.storage import Storage, allocation_failed
from ownership.core.tensor import Tensor
from ownership.ops.leftover_size import shape_changed
from ownership.ops.memory_formats import format_strides, memory_format, preserve_format, suggested

__all__ = ["resize_", "resize_as_", "resize_impl"]

_UINT64 = 2**64
_LONE = 4  # see ``_rederive``
_INT64_MAX = 2**63 - 1


def _numel(shape: Sequence[int]) -> int:
    """The element count of ``shape`` as torch's ``compute_numel`` checks it: the sizes
    multiplied as unsigned 64-bit integers (a negative size is a huge one), refused when a
    product wraps or the count passes the int64 maximum."""
    count, overflow = 1, False
    for size in shape:
        count *= size % _UINT64
        if count >= _UINT64:
            overflow, count = True, count % _UINT64
    if overflow or count > _INT64_MAX:
        raise RuntimeError("numel: integer multiplication overflow")
    return count


def _rederive(storage: Storage) -> None:
    """Point every tensor over ``storage`` at its new buffer, with its own sizes, strides and
    offset (torch's tensors share one ``StorageImpl``, whose memory the resize swapped).

    The tensors sharing a storage are the objects that refer to it: the garbage collector
    lists them (a resize that reallocates is rare; nothing is kept on the hot paths of views
    and aliases for it), and so the parts of a saved output's alias not made yet. The list
    costs a pass over every object, skipped when the storage has no holder but the resized
    tensor: :data:`_LONE` references (that tensor's slot, the caller's name, this parameter and
    ``getrefcount``'s argument)."""
    if sys.getrefcount(storage) <= _LONE:
        return
    buffer = storage.buffer
    for holder in gc.get_referrers(storage):
        if isinstance(holder, Tensor) and holder._lazy_storage is storage:
            data = holder._data
            if data.size:  # an empty tensor reads no memory
                holder._data = layout.strided(buffer, data.shape, holder._stride(), holder._offset)
        elif type(holder) is tuple and len(holder) == 7 and holder[3] is storage:
            _rederive_parts(holder, buffer)


def _rederive_parts(parts: tuple[Any, ...], buffer: NDArray[Any]) -> None:
    """A saved output's alias not made yet (its ``Tensor._alias_parts``) over the new buffer."""
    data, offset = parts[2], parts[4]
    if not data.size:
        return
    item = data.itemsize
    strides = [s // item for s in data.strides]
    new = (*parts[:2], layout.strided(buffer, data.shape, strides, offset), *parts[3:])
    for owner in gc.get_referrers(parts):
        if isinstance(owner, SavedTensor) and owner.tensor_parts is parts:
            owner.tensor_parts = new


def _lay_out(t: Tensor, shape: tuple[int, ...], strides: Sequence[int]) -> None:
    """Give ``t`` these sizes and strides at its offset, over its storage's buffer (a non-view
    with no elements keeps its strides in an array of its own: it reads no memory)."""
    if 0 in shape and t._base is None:
        t._data = layout.empty_strided(shape, strides, t._data.dtype)
    else:
        t._data = layout.strided(t._storage.buffer, shape, strides, t._offset)


def resize_impl(t: Tensor, size: Sequence[Any]) -> bool:
    """torch's ``resize_impl_cpu_``: ``t`` with new sizes and contiguous strides, its storage
    grown if too small; False (nothing done) for the same sizes."""
    shape = tuple(int(s) for s in size)
    if shape == t._data.shape:
        return False
    numel = _numel(shape)
    if min(shape, default=0) < 0:  # torch makes a tensor of a negative size here
        raise RuntimeError(
            f"resize_ to the negative size {list(shape)} is not supported by ownership"
        )
    nbytes = (t._offset + numel) * t._data.itemsize
    if nbytes > _INT64_MAX:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes=[{', '.join(map(str, shape))}]"
        )
    storage = t._storage
    if numel and nbytes > storage.nbytes():
        _grow(storage, nbytes)
        _rederive(storage)
    old_shape = t._data.shape
    note_shape_change(t, tuple(old_shape))  # autograd's metadata keeps the old sizes
    _lay_out(t, shape, layout.contiguous_strides(shape))
    shape_changed(t, old_shape)
    return True


class LentStorage(Storage):
    """Memory lent by a numpy array (``from_numpy``): as torch's, it cannot grow (:func:`_grow`)."""

    __slots__ = ()


def _grow(storage: Storage, nbytes: int) -> NDArray[Any]:
    """Swap the buffer of ``storage`` for a new one of ``nbytes`` bytes (rounded up to whole
    elements) whose first elements are the old ones, the rest uninitialised; return it (torch's
    ``resize_bytes_cpu``, with its errors). Arrays taken from the old buffer still read the
    old memory: the caller re-derives those of the tensors sharing this storage."""
    if isinstance(storage, LentStorage):
        raise RuntimeError("Trying to resize storage that is not resizable")
    old = storage.buffer
    try:
        new = np.empty(-(-nbytes // old.itemsize), dtype=old.dtype)
    except MemoryError:
        raise allocation_failed(nbytes) from None
    new[: old.size] = old
    storage._buffer = new
    return new


def _restrided(t: Tensor, fmt: memory_format) -> None:
    """torch's ``empty_tensor_restride``: ``t`` laid out as ``fmt`` over the memory it has."""
    shape = tuple(t._data.shape)
    strides = format_strides(fmt, shape)
    numel = layout.numel(shape)
    if numel and (t._offset + numel) * t._data.itemsize > t._storage.nbytes():
        # the same sizes (nothing was resized) over less memory, as an expanded tensor's:
        # torch's tensor then reads past its storage
        raise RuntimeError(
            f"resize_ of a tensor larger than its storage to {fmt} is not supported by ownership"
        )
    _lay_out(t, shape, strides)


def _before_resize(t: Tensor) -> None:
    """torch's autograd kernel of the resizes (not run in inference mode), then what an open
    ``allow_mutation_on_saved_tensors`` block does before any write (its dispatch mode sees the
    resize below autograd): the saved tensors ``t`` is about to change cloned."""
    if t.requires_grad and not inference_mode._state.enabled:
        raise RuntimeError("cannot resize variables that require grad")
    if observers.BEFORE_WRITES:
        observers.before_write(t)


def resize_(t: Tensor, size: Sequence[Any], memory_format: memory_format | None = None) -> Tensor:
    """``t`` with sizes ``size`` in place (see the module's rules), then laid out as
    ``memory_format`` if given (even for the same sizes; never ``preserve_format``); returns
    ``t``. The version goes up once when the sizes changed and nothing was refused."""
    _before_resize(t)
    changed = resize_impl(t, size)
    if memory_format is not None:
        _restrided(t, memory_format)
    if changed:
        written(t, "resize_")
    return t


def resize_as_(
    t: Tensor, the_template: Tensor, memory_format: memory_format | None = None
) -> Tensor:
    """``t`` with the sizes of ``the_template`` (not its strides, dtype or ``requires_grad``),
    then laid out as ``memory_format`` if given; ``preserve_format``: as the template's strides
    suggest. Bumps as :func:`resize_`."""
    _before_resize(t)
    changed = resize_impl(t, the_template._data.shape)
    if memory_format is not None:
        if str(memory_format) == str(preserve_format):
            memory_format = suggested(the_template._data.shape, the_template._stride())
        _restrided(t, memory_format)
    if changed:
        written(t, "resize_as_")
    return t
