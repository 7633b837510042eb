"""The strides torch's TensorIterator gives an op's fresh result: dense in the order of its
operands' strides (``reorder_dimensions``: :func:`~ownership.core.layout.stride_order`), so an
elementwise op of a transposed or channels-last tensor is laid out like it (``x.t() + y`` is),
where numpy's own order may differ.

Only the ops lay out a result this way; core's tensors keep the geometry they are given
(:mod:`ownership.core.layout`).

>>> elementwise_strides((3, 2), (((3, 2), (1, 3)), ((3, 2), (1, 3))))
(1, 3)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ownership.core.layout import Shape, is_contiguous, non_overlapping_and_dense, stride_order
from ownership.ops.memory_formats import channels_last_contiguous, channels_last_strides

__all__ = ["elementwise_strides", "iterator_strides"]


@functools.lru_cache(maxsize=4096)
def elementwise_strides(
    shape: Shape, operands: tuple[tuple[Shape, Shape] | None, ...]
) -> Shape | None:
    """The element strides torch's TensorIterator gives the fresh result of ``shape`` of an
    elementwise op, None when row-major. ``operands``: each operand's own (sizes, strides) in
    torch's order (``self`` first), None for a number (a 0-d tensor to torch). Decided once per
    geometry (a training loop asks the same few): the arguments are tuples.

    Operands all of the result's shape (no number, unless the result is 0-d) take torch's fast
    setup: all contiguous, row-major; all of rank 4 and channels-last contiguous, channels-last;
    all non-overlapping and dense with the same strides, those strides. Otherwise the dimensions are ordered by :func:`iterator_strides`, the first
    operand that orders two dimensions deciding (``x.t() + y`` is laid out like ``x.t()``).

    >>> elementwise_strides((3, 2), (((3, 2), (1, 3)), ((3, 2), (2, 1))))
    (1, 3)
    >>> elementwise_strides((3, 2), (((3, 2), (2, 1)), ((3, 2), (1, 3)))) is None
    True
    """
    own = tuple(shape)
    if all(o is not None and tuple(o[0]) == own for o in operands):
        given = [tuple(o[1]) for o in operands if o is not None]
        if all(is_contiguous(own, st) for st in given):
            return None
        if len(own) == 4 and all(channels_last_contiguous(own, st) for st in given):
            return channels_last_strides(own)
        if all(st == given[0] for st in given) and non_overlapping_and_dense(own, given[0]):
            return given[0]
    broadcast: list[Sequence[int] | None] = []
    for o in operands:
        if o is None:
            broadcast.append(None)
            continue
        sizes, strides = o
        lead = len(own) - len(sizes)
        kept = zip(sizes, strides, own[lead:], strict=True)
        broadcast.append((0,) * lead + tuple(0 if n == 1 and m != 1 else s for n, s, m in kept))
    return iterator_strides(own, broadcast)


def iterator_strides(
    shape: Sequence[int], operands: Sequence[Sequence[int] | None]
) -> Shape | None:
    """The element strides torch's TensorIterator gives the result of ``shape`` of an op whose
    operands (broadcast) are not all of that shape, None when they are row-major.

    ``operands``: each operand's element strides broadcast to ``shape`` (0 along a broadcast
    dimension), None for a number. The dimensions are ordered by TensorIterator's
    ``reorder_dimensions`` (:func:`~ownership.core.layout.stride_order`), and
    the result is dense in that order with no ``max(size, 1)`` (``compatible_stride``: the
    dimensions after a size-0 one get stride 0).
    """
    nd = len(shape)
    perm = stride_order(shape, operands)
    if perm == list(range(nd - 1, -1, -1)):
        return None
    out = [0] * nd
    step = 1
    for d in perm:
        out[d] = step
        step *= shape[d]
    return tuple(out)
