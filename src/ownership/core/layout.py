"""Shape and stride arithmetic, in elements, with torch's rules and error messages (no data).

>>> contiguous_strides((2, 3, 4))
(12, 4, 1)
>>> broadcast_shapes((3, 1), (1, 4))
(3, 4)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

Shape = tuple[int, ...]


class Size(tuple[int, ...]):
    """A tensor's shape: a tuple of ints that prints like ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        """The product of the sizes."""
        return numel(self)


def numel(shape: Sequence[int]) -> int:
    """Number of elements of a shape."""
    return math.prod(shape)


def contiguous_strides(shape: Sequence[int]) -> Shape:
    """Row-major strides in elements (an empty dim counts as size 1)."""
    strides, acc = [1] * len(shape), 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = acc
        acc *= max(shape[i], 1)
    return tuple(strides)


_KEPT_STRIDES = bytearray(0)  # the buffer of every empty array whose strides are the tensor's


def empty_strided(shape: Sequence[int], strides: Sequence[int], np_dtype: Any) -> NDArray[Any]:
    """An array with no elements and exactly these element strides."""
    item = np.dtype(np_dtype).itemsize
    return np.ndarray(tuple(shape), np_dtype, _KEPT_STRIDES, 0, [s * item for s in strides])


def dense_with_strides(shape: Sequence[int], strides: Sequence[int], np_dtype: Any) -> NDArray[Any]:
    """A new uninitialised array of ``shape`` with exactly these dense element strides."""
    size = numel(shape)
    if size == 0:
        return empty_strided(shape, strides, np_dtype)
    return strided(np.empty(size, dtype=np_dtype), shape, strides, 0)


def row_major(arr: NDArray[Any]) -> bool:
    """Whether ``arr``'s strides are torch's row-major strides, a size-1 dim's included (which
    numpy's ``c_contiguous`` ignores).

    >>> x = np.zeros((2, 1, 3))
    >>> row_major(x), row_major(x[:, ::2]), x[:, ::2].flags.c_contiguous
    (True, False, True)
    """
    if not arr.flags.c_contiguous:
        return False
    shape = arr.shape
    if 1 not in shape:
        return True
    strides, step = arr.strides, arr.itemsize
    for d in range(len(shape) - 1, -1, -1):  # innermost first
        if strides[d] != step:
            return False
        step *= shape[d] or 1
    return True


def as_row_major(arr: NDArray[Any]) -> NDArray[Any]:
    """``arr`` itself when :func:`row_major`, else a row-major copy (torch's reductions')."""
    return arr if row_major(arr) else np.array(arr, order="C")


def kept_strides(arr: NDArray[Any]) -> bool:
    """Whether ``arr`` was made by :func:`empty_strided`: its numpy strides are the tensor's."""
    return cast(object, arr.base) is _KEPT_STRIDES


def preserved(arr: NDArray[Any], strides: Sequence[int], np_dtype: Any) -> NDArray[Any]:
    """A new array laid out as ``preserve_format`` lays out a copy of ``arr`` of ``strides``."""
    return dense_with_strides(arr.shape, preserved_strides(arr.shape, strides), np_dtype)


def preserved_strides(shape: Sequence[int], strides: Sequence[int]) -> Sequence[int]:
    """The strides ``preserve_format`` gives a copy: its own if dense, or :func:`dense_strides`."""
    if numel(shape) == 0 or non_overlapping_and_dense(shape, strides):
        return strides
    return dense_strides(shape, strides)


def stride_order(shape: Sequence[int], operands: Sequence[Sequence[int] | None]) -> list[int]:
    """The dimensions of ``shape``, innermost first, by the strides of ``operands`` (None for a
    number): torch's insertion sort of ``reorder_dimensions`` and ``infer_dense_strides``.

    >>> stride_order((2, 3), [(1, 2)])
    [0, 1]
    """
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            swap = _should_swap(shape, operands, perm[d0], perm[d1])
            if swap > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif swap < 0:
                break
    return perm


def _should_swap(
    shape: Sequence[int], operands: Sequence[Sequence[int] | None], a: int, b: int
) -> int:
    """1 when dimension ``a`` goes after ``b``, -1 before, 0 undecided."""
    for strides in operands:
        if strides is None or strides[a] == 0 or strides[b] == 0:
            continue
        if strides[a] != strides[b]:
            return 1 if strides[a] > strides[b] else -1
        if shape[a] > shape[b]:
            return 1
    return 0


def dense_strides(shape: Sequence[int], strides: Sequence[int]) -> Shape:
    """torch's ``infer_dense_strides``: dense strides keeping the order of ``strides``."""
    if len(shape) < 2:
        return tuple(1 for _ in shape)
    out, step = [0] * len(shape), 1
    for d in stride_order(shape, [strides]):
        out[d] = step
        if shape[d] > 1:
            step *= shape[d]
    return tuple(out)


def non_overlapping_and_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's ``is_non_overlapping_and_dense``: the elements fill their memory exactly."""
    if is_contiguous(shape, strides):
        return True
    order = sorted(
        range(len(shape)), key=lambda d: (shape[d] < 2, strides[d] if shape[d] >= 2 else 0)
    )
    need = 1
    for d in order:
        if shape[d] < 2:
            return True
        if strides[d] != need:
            return False
        need *= shape[d]
    return True


def dense_array(arr: NDArray[Any]) -> bool:
    """Whether ``arr`` (all strides non-negative) is :func:`non_overlapping_and_dense`."""
    item, strides = arr.itemsize, arr.strides
    if any(s < 0 or s % item for s in strides):
        return False
    return non_overlapping_and_dense(arr.shape, [s // item for s in strides])


def address(arr: NDArray[Any]) -> int:
    """The byte address of ``arr``'s element 0 (torch's ``data_ptr``)."""
    return int(arr.__array_interface__["data"][0])


def fresh_layout(arr: NDArray[Any]) -> NDArray[Any]:
    """A freshly computed array as a new tensor keeps it: itself if dense, else a C-order copy."""
    if arr.flags.forc or dense_array(arr):
        return arr
    return np.ascontiguousarray(arr)


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's rule: row-major order, ignoring dimensions of size 1 (and empty tensors)."""
    if 0 in shape:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def wrap_dim(dim: int, ndim: int) -> int:
    """Normalise a possibly negative dim, raising torch's IndexError when out of range."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if dim < lo or dim > hi:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim + max(ndim, 1) if dim < 0 else dim


def broadcast_shapes(*shapes: Sequence[int]) -> Shape:
    """The broadcast of several shapes, raising torch's message (``infer_size``'s) if none."""
    out: tuple[int, ...] = tuple(shapes[0]) if shapes else ()
    for s in shapes[1:]:
        ndim = max(len(out), len(s))
        a, b = (1,) * (ndim - len(out)) + out, (1,) * (ndim - len(s)) + tuple(s)
        dims = list(a)
        for i in range(ndim - 1, -1, -1):  # where the sizes differ, one is 1: the other's
            if a[i] != b[i]:
                if a[i] != 1 and b[i] != 1:
                    raise RuntimeError(
                        f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) "
                        f"at non-singleton dimension {i}"
                    )
                dims[i] = b[i] if a[i] == 1 else a[i]
        out = tuple(dims)
    return out


INTERNAL_OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
"""torch's refusal to write a tensor that :func:`has_internal_overlap`."""


def has_internal_overlap(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """True when two elements share memory (a stride-0 dim of size > 1, as after expand)."""
    return 0 not in shape and any(st == 0 and sz > 1 for sz, st in zip(shape, strides, strict=True))


def strided(
    buffer: NDArray[Any], shape: Sequence[int], strides: Sequence[int], offset: int
) -> NDArray[Any]:
    """A numpy view of ``buffer`` with the given sizes, element strides and element offset."""
    item = buffer.itemsize
    if 0 in shape:
        offset = 0  # an empty view touches no memory; torch allows any offset for it
    return np.ndarray(
        tuple(shape), buffer.dtype, buffer, offset * item, [s * item for s in strides]
    )
