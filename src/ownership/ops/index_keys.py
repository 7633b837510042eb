"""Reading an index key as torch reads it: the key as a tuple (refused as torch refuses it),
numpy arrays and torch tensors as indices or masks (a uint8 one a mask, with torch's deprecation
warning), and the key numpy indexes with; torch's messages for a float index, a mask of the
wrong shape and an index out of range.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from typing import Any

import numpy as np

from ownership.core import dtypes
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.ops.creation import to_numpy
from ownership.ops.type_names import is_torch_tensor, tp_name


def is_basic(item: Any) -> bool:
    if item is None or item is Ellipsis or isinstance(item, slice):
        return True
    if isinstance(item, bool):
        return False
    if isinstance(item, int | np.integer):
        return True
    return (
        isinstance(item, Tensor)
        and item._data.ndim == 0
        and item.dtype in (dtypes.int64, dtypes.int32)
    )


_INDEX_KINDS = (int, np.integer, slice, type(None), type(Ellipsis), Tensor, list, tuple, np.ndarray)


_BYTE_INDEX = (
    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."
)


_BYTE_DTYPES = ("uint8", "torch.uint8")  # numpy's name, torch's


def _is_byte_mask(k: Any) -> bool:
    """Whether ``k`` is a uint8 numpy array (or torch tensor, or a list torch reads as one:
    :func:`_is_byte_list`): a mask that torch reads with its deprecation warning when it has
    one or more dims (a 0-d one is a 0-d bool, without a warning)."""
    if isinstance(k, list | tuple):
        return _is_byte_list(k)
    return (isinstance(k, np.ndarray) or is_torch_tensor(k)) and str(k.dtype) in _BYTE_DTYPES


def _is_byte_list(k: list[Any] | tuple[Any, ...]) -> bool:
    """Whether torch reads the sequence ``k`` as a uint8 tensor: numpy uint8 numbers, bools
    beside them (``torch.tensor([np.uint8(1), True])`` is uint8), at least one uint8; a Python
    int beside them makes it int64 (an index)."""
    return any(isinstance(v, np.uint8) for v in k) and all(
        isinstance(v, np.uint8 | bool) for v in k
    )


def byte_masks(key: Any) -> int:
    """How many uint8 masks of one or more dims ``key`` holds."""
    tkey = key if isinstance(key, tuple) else (key,)
    return sum(_is_byte_mask(k) and np.ndim(k) > 0 for k in tkey)


def warn_byte_index(in_backward: bool = False) -> None:
    """torch's warning of a uint8 mask index, at the user's line (``in_backward``: at the
    engine's, as torch's backward names its own Python frame)."""
    if in_backward:
        warnings.warn(_BYTE_INDEX, UserWarning, stacklevel=2)
    else:
        warn_at_user(_BYTE_INDEX)


def _array_index(k: Any) -> Any:
    """A numpy array index (or a torch tensor, read as one) as torch reads it: its data as
    int64 indices unless bool or uint8 (a mask, torch's ``indexing_tensor_from_data``), and a
    0-d one as an integer (a ``select``, as ``x[1]``)."""
    arr = np.asarray(k)
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype == np.uint8:
        return arr.astype(bool)
    arr = arr.astype(np.int64)
    return int(arr) if arr.ndim == 0 else arr


_SEQUENCES = (list, tuple, str, bytes, range, np.ndarray)
"""What CPython's ``PySequence_Check`` answers yes for, among the items an index list may hold."""


def sequence_as_tuple(key: Any) -> Any:
    """torch's reading of a list key (numpy's old rule, deprecated; torch's
    ``treatSequenceAsTuple``): a list of fewer than 32 items holding a tensor, a sequence, a
    slice, ``...`` or None is the tuple of its items (``x[[slice(None), 1]]`` is ``x[:, 1]``,
    ``x[[[1, 0]]]`` is ``x[[1, 0]]``), with torch's warning at the user's line; any other key
    is returned as it is."""
    if type(key) is not list or len(key) >= 32:
        return key
    for k in key:
        if (
            isinstance(k, (Tensor, slice, *_SEQUENCES))
            or k is None
            or k is Ellipsis
            or is_torch_tensor(k)
        ):
            warn_at_user(_SEQUENCE_INDEX)
            return tuple(key)
    return key


def _as_list(k: Any) -> Any:
    """A ``range`` index as the list of its ints: torch reads any Python sequence in an index
    (``sequenceToVariable``) as the tensor ``torch.tensor`` makes of it, so ``x[range(2), idx]``
    is ``x[[0, 1], idx]``."""
    return list(k) if isinstance(k, range) else k


def keys(t: Tensor, key: Any) -> tuple[Any, ...]:
    """The index as a tuple, refused as torch refuses it (strings, zero steps, other objects)."""
    tkey = tuple(map(_as_list, key if isinstance(key, tuple) else (key,)))
    tkey = tuple(
        _array_index(k)
        if isinstance(k, np.ndarray) or is_torch_tensor(k)
        else _array_index(np.array(k, dtype=np.uint8))
        if isinstance(k, list | tuple) and _is_byte_list(k)
        else k
        for k in tkey
    )
    if isinstance(key, str):  # torch reads a string as a (deprecated) sequence of indices
        # torch warns, but drops the warning when it is an error: the index fails anyway
        with contextlib.suppress(UserWarning):
            warn_at_user(_SEQUENCE_INDEX)
    # torch reads a lone int or slice at once (applySelect, applySlice); any other key is a tuple
    # whose indices count (dims_indexed) against the tensor's dims, a 0-d tensor's too
    first = tkey[0] if tkey else None
    lone = not isinstance(key, tuple) and isinstance(first, int | np.integer | slice)
    lone = lone and not isinstance(first, bool)
    if lone and t._data.ndim == 0 and isinstance(first, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if not lone and sum(dims_indexed(k) for k in tkey) > t._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    if isinstance(key, str | bytes):
        raise TypeError(f"new(): invalid data type '{tp_name(key)}'")
    for k in tkey:
        if isinstance(k, str | bytes):
            raise TypeError(f"new(): invalid data type '{tp_name(k)}'")
        if isinstance(k, slice):
            for bound in (k.start, k.stop, k.step):
                if not (bound is None or hasattr(bound, "__index__")):
                    raise TypeError(
                        "slice indices must be integers or None or have an __index__ method"
                    )
            if k.step == 0:
                raise ValueError("slice step cannot be zero")
        elif not isinstance(k, _INDEX_KINDS):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {tp_name(k)})"
            )
    return tkey


def dims_indexed(k: Any) -> int:
    """How many dimensions of the tensor an index uses (a boolean mask: its own ndim)."""
    if k is None or k is Ellipsis or isinstance(k, bool):
        return 0
    if isinstance(k, np.ndarray) and k.dtype.kind == "b":
        return int(k.ndim)
    if isinstance(k, Tensor) and k.dtype is dtypes.bool_:
        return int(k._data.ndim)
    return 1


_SEQUENCE_INDEX = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result"
)


def np_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    out = []
    for k in key:
        if isinstance(k, Tensor):
            out.append(k._data)
        elif isinstance(k, list | tuple):  # torch reads a list of indices as int64 (or bool)
            arr = np.asarray(to_numpy(k))
            out.append(arr if arr.dtype.kind == "b" else arr.astype(np.int64))
        elif hasattr(k, "__array__"):
            out.append(np.asarray(to_numpy(k)))
        else:
            out.append(k)
    return tuple(out)


def index_tensors(t: Tensor, tkey: tuple[Any, ...], npkey: tuple[Any, ...]) -> list[Any]:
    """The indices torch's ``index``/``index_put_`` take and save (``_saved_indices``), for a key
    whose only basic indices are slices and an ellipsis: None for each dimension they keep, up
    to the last advanced index, and each advanced index as a tensor (the one given, else the
    tensor torch makes of a list or array: int64, or a bool mask)."""
    out: list[Any] = []
    for k, nk in zip(tkey, npkey, strict=True):
        if k is Ellipsis:
            spanned = t._data.ndim - sum(dims_indexed(x) for x in tkey)
            out += [None] * spanned
        elif is_basic(k):
            out.append(None)
        else:
            out.append(k if isinstance(k, Tensor) else Tensor._wrap(np.asarray(nk)))
    while out and out[-1] is None:
        out.pop()
    return out


def check_advanced(t: Tensor, npkey: tuple[Any, ...]) -> None:
    """torch's messages for a float index and a boolean mask of the wrong shape."""
    d = 0
    for k in npkey:
        if isinstance(k, np.ndarray) and k.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if isinstance(k, np.ndarray) and k.dtype.kind == "b":
            for j, n in enumerate(k.shape):
                if d + j >= t._data.ndim or t._data.shape[d + j] != n:
                    raise IndexError(
                        f"The shape of the mask {list(k.shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {list(t._data.shape)} at index {d + j}"
                    )
            d += k.ndim
        elif k is not None and k is not Ellipsis:
            d += 1


def numpy_index(arr: Any, npkey: tuple[Any, ...]) -> Any:
    """``arr[npkey]``, numpy's IndexError in torch's words: an index out of range names its
    position among the index tensors (:func:`_index_position`), shapes that do not broadcast
    are listed as torch lists them."""
    try:
        return arr[npkey]
    except IndexError as exc:
        message = str(exc)
        if message.endswith(" with size 0"):  # torch's words for an empty dimension
            message = "index is out of bounds for dimension with size 0"
        elif message.startswith("shape mismatch: indexing arrays"):
            shapes = ", ".join(
                str([int(n) for n in m.split(",") if n.strip()])
                for m in re.findall(r"\(([^()]*)\)", message)
            )
            message = f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        else:
            found = re.fullmatch(
                r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", message
            )
            if found:
                index, axis, size = found.groups()
                dim = _index_position(npkey, int(axis), arr.ndim)
                message = f"index {index} is out of bounds for dimension {dim} with size {size}"
        raise IndexError(message.replace(" axis ", " dimension ")) from None


def _index_position(npkey: tuple[Any, ...], axis: int, ndim: int) -> int:
    """The position among the index tensors (a mask counts as one per dim) of the one that
    indexes ``axis`` of the indexed array: the dimension torch's index kernel names."""
    consumed = sum(
        np.ndim(k) if is_mask(k) else 1 for k in npkey if k is not None and k is not Ellipsis
    )
    at = position = 0
    for k in npkey:
        if k is None:
            continue
        if k is Ellipsis:
            at += ndim - consumed
            continue
        if isinstance(k, np.ndarray):
            n = k.ndim if is_mask(k) else 1
            if at <= axis < at + n:
                return position + axis - at
            position += n
            at += n
        else:
            at += 1
    return axis


def is_mask(k: Any) -> bool:
    """Whether the index ``k`` is a mask: a bool tensor, array or list of bools (a uint8 mask is
    read as bool before it gets here)."""
    if isinstance(k, Tensor):
        return k.dtype is dtypes.bool_
    if isinstance(k, list) and k and all(isinstance(i, bool) for i in k):
        return True
    return isinstance(k, np.ndarray) and k.dtype.kind == "b"
