"""The order in which torch's CPU kernels write, and a write in that order: what an in-place op
computes when an input shares memory with the written tensor and torch lets it (its overlap
check, :func:`~ownership.core.inplace_rules.overlap_status`, answers ``TOO_HARD`` unless both tensors
are dense), or when the written tensor's own elements overlap (``as_strided``).

numpy computes such a write as if every input were read before anything is written; torch's
kernel reads and writes as its loop goes, so an element written early is read by a later one.
:func:`write_in_loop_order` follows that loop; everywhere else the engine keeps numpy's fast
path, whose values are the same when nothing is read after it is written.

>>> import numpy as np
>>> x = np.arange(6.0).reshape(3, 2)
>>> write_in_loop_order(x[1:, 0], [x[:-1, 0]], lambda v: v, vectorized=True)  # a column shifted
>>> x[:, 0].tolist()  # x[1, 0] = x[0, 0], then x[2, 0] = x[1, 0] (numpy's copy: [0.0, 0.0, 2.0])
[0.0, 0.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ownership.core import layout
from ownership.ops.cpu import GRAIN_SIZE, parts, simd
from ownership.ops.iteration_order import iterator_strides

__all__ = [
    "Kernel",
    "Scatter",
    "Step",
    "aliased",
    "loop_steps",
    "vector_elements",
    "write_aliased",
    "write_in_loop_order",
]


class Scatter(NamedTuple):
    """``index_put_``'s loop (``cpu_index_kernel``), whose elements are not the written
    tensor's: ``targets``, of the loop's shape, the row-major index in the written array of the
    element each writes; ``strides``, the byte strides TensorIterator orders the loop by, of the
    written tensor restrided (``restride_src``: 0 along the indexed dimensions) and of each
    index tensor (0 along the others)."""

    targets: NDArray[np.intp]
    written: Sequence[int]
    indices: Sequence[Sequence[int]]


class Kernel(NamedTuple):
    """An elementwise CPU kernel of torch's as :func:`write_in_loop_order` runs it: ``fn`` of
    the values of its inputs (arrays, or numbers), and whether torch's kernel has a vector loop
    (``cpu_kernel_vec``) or only an element-by-element one (``cpu_kernel``); ``grain``: the
    count of elements above which it splits them among threads (None: ``GRAIN_SIZE``);
    ``scatter``: makes the loop of ``index_put_`` (and of ``masked_fill_`` into an expanded
    tensor), not over the written tensor's elements."""

    fn: Callable[..., Any]
    vectorized: bool
    grain: int | None = None
    scatter: Callable[[], Scatter] | None = None


def write_aliased(
    kernel: Callable[[], Kernel] | None, inputs: Sequence[Any], out: NDArray[Any]
) -> Callable[[NDArray[Any]], None] | None:
    """The write into ``out`` of the kernel that ``kernel()`` makes, reading ``inputs``, in
    torch's loop order when :func:`aliased` (None otherwise: the caller's own write, numpy's,
    gives the same values)."""
    if kernel is None or not aliased(out, inputs, elementwise=False):
        return None
    fn, vectorized, grain, scatter = kernel()
    if scatter is None and not aliased(out, inputs):
        return None  # an input that is out's very elements: element i reads only element i
    loop = None if scatter is None else scatter()
    return lambda into: write_in_loop_order(
        into, inputs, fn, vectorized=vectorized, grain=grain, scatter=loop
    )


def aliased(out: NDArray[Any], inputs: Sequence[Any], *, elementwise: bool = True) -> bool:
    """Whether writing ``out`` from ``inputs`` (read as they are) could depend on the order of
    the writes: an input of ``out``'s dtype that may share memory with ``out`` without being its
    very elements (``elementwise``: element i of the write reads element i of each input; a
    scatter's reads do not follow its writes, so for it those count too), or ``out`` whose
    elements overlap each other."""
    if out.size < 2:
        return False
    for x in inputs:
        if not isinstance(x, np.ndarray) or x is out or x.dtype != out.dtype:
            continue
        if not np.may_share_memory(out, x):
            continue
        same = x.shape == out.shape and x.strides == out.strides
        if not elementwise or not same or layout.address(x) != layout.address(out):
            return True
    return _elements_overlap(out)


def _elements_overlap(a: NDArray[Any]) -> bool:
    """Whether two elements of ``a`` are one memory location: never when, its dimensions
    ordered by stride, each steps past all that the ones inside it reach (any view torch's view
    ops make), else asked of the elements' addresses."""
    flags = a.flags
    if flags.c_contiguous or flags.f_contiguous:
        return False
    reach = 0  # the bytes past an element's start that the inner dimensions reach
    for stride, size in sorted((abs(st), n) for st, n in zip(a.strides, a.shape, strict=True)):
        if size > 1:
            if stride <= reach:
                return bool(np.unique(_addresses(a)).size < a.size)
            reach += (size - 1) * stride
    return False


class Step(NamedTuple):
    """One step of torch's loop: the elements ``order[start:stop]``, whose inputs are all read
    before any of them is written; ``scalar``: the input (1, 2 ...) a vector row loads once, at
    its first step (``loads``), for all its steps (0: none)."""

    start: int
    stop: int
    scalar: int = 0
    loads: bool = False


def loop_steps(
    shape: Sequence[int],
    strides: Sequence[Sequence[int]],
    itemsize: int,
    *,
    vectorized: bool,
    grain: int | None = None,
) -> tuple[NDArray[np.intp], list[Step]]:
    """The elements of ``shape`` in the order torch's CPU loop visits them (row-major indices),
    and the loop's steps over that order.

    ``strides``: each operand's byte strides broadcast to ``shape`` (0 along a broadcast
    dimension), the written one first. It follows ``aten/src/ATen/TensorIterator.cpp`` and
    ``native/cpu/Loops.h``: ``reorder_dimensions`` (:func:`~ownership.core.layout.stride_order`),
    ``coalesce_dimensions`` (the inner row: ``_inner_row``), ``for_each`` (one part up to
    ``grain`` elements, ``GRAIN_SIZE`` when None, else ``at::parallel_for``'s parts, each starting its own rows), then,
    per row, ``VectorizedLoop2d``: when the kernel has a vector loop and every operand's inner
    stride is ``itemsize`` (or exactly one input's is 0: ``unroll_contiguous_scalar_checks``),
    ``vectorized_loop`` (blocks of two vectors, each block's inputs loaded before its two
    stores; the 0-stride input loaded once, at the row's start), then its tail, and every other
    row, ``basic_loop``: element by element. A vector is ``simd()`` bytes (32 on x86, AVX512
    included).

    torch's threads run their parts at once: where a part reads what another writes, torch's
    values are a race, which this order settles as if the parts ran one after another."""

    if not shape:
        shape, strides = (1,), [(0,) for _ in strides]
    perm = layout.stride_order(shape, strides)  # innermost first
    grid = np.arange(int(np.prod(shape)), dtype=np.intp).reshape(tuple(shape))
    order = grid.transpose(perm[::-1]).ravel()
    row, inner = _inner_row([shape[d] for d in perm], [[s[d] for d in perm] for s in strides])
    zeros = [k for k in range(1, len(inner)) if inner[k] == 0]
    contiguous = all(s == itemsize for k, s in enumerate(inner) if k not in zeros)
    vectorized = vectorized and contiguous and len(zeros) <= 1
    scalar = zeros[0] if vectorized and zeros else 0
    block = 2 * (simd()[0] // itemsize)
    steps: list[Step] = []
    for begin, end in parts(order.size, GRAIN_SIZE if grain is None else grain):
        start = begin
        while start < end:
            stop = min(end, (start // row + 1) * row)
            i = start
            while vectorized and i + block <= stop:
                steps.append(Step(i, i + block, scalar, i == start))
                i += block
            steps += [Step(j, j + 1) for j in range(i, stop)]
            start = stop
    return order, steps


def vector_elements(shape: Sequence[int], inputs: Sequence[NDArray[Any]]) -> NDArray[np.bool_]:
    """Which elements of a fresh result of ``shape`` torch's elementwise CPU kernel (one with a
    vector loop) computes in its vector blocks rather than element by element (the tail of a
    row, or a row that cannot be vectorised): :func:`loop_steps` over ``inputs`` (arrays of the
    result's dtype) and a result dense in TensorIterator's order."""
    itemsize = inputs[0].itemsize
    arrays = [np.broadcast_to(x, tuple(shape)) for x in inputs]
    byte_strides = [x.strides for x in arrays]
    element = [tuple(s // itemsize for s in st) for st in byte_strides]
    own = iterator_strides(shape, element) or layout.contiguous_strides(shape)
    out = tuple(s * itemsize for s in own)
    order, steps = loop_steps(shape, [out, *byte_strides], itemsize, vectorized=True)
    vector = np.zeros(len(order), dtype=bool)
    for step in steps:
        if step.stop - step.start > 1:
            vector[order[step.start : step.stop]] = True
    return vector.reshape(tuple(shape))


def _inner_row(shape: list[int], strides: list[list[int]]) -> tuple[int, list[int]]:
    """The size and the operands' strides of the first dimension left by torch's
    ``coalesce_dimensions`` of ``shape`` (innermost first): two dimensions merge when either
    has size 1 or, for every operand, the outer stride is the inner one times its size."""
    size, inner = shape[0], [s[0] for s in strides]
    for d in range(1, len(shape)):
        if shape[d] == 1:
            continue
        if size == 1:
            size, inner = shape[d], [s[d] for s in strides]
        elif all(size * i == s[d] for i, s in zip(inner, strides, strict=True)):
            size *= shape[d]
        else:
            break
    return size, inner


def write_in_loop_order(
    out: NDArray[Any],
    inputs: Sequence[Any],
    fn: Callable[..., Any],
    *,
    vectorized: bool,
    grain: int | None = None,
    scatter: Scatter | None = None,
) -> None:
    """Write ``fn(*inputs)`` into ``out`` as torch's CPU kernel does when they share memory: in
    :func:`loop_steps`' order, each step reading its inputs from memory as the earlier steps
    left it. ``fn`` is elementwise (numpy arrays of one value per element in, the values out);
    ``inputs`` broadcast to the loop's shape (``out``'s, or ``scatter``'s: ``index_put_``) and
    have ``out``'s dtype (torch reads an input of another dtype from a converted copy, never
    from the written memory); ``vectorized``: the kernel has a vector loop
    (``cpu_kernel_vec``), else element by element (``cpu_kernel``).

    A step costs a few numpy calls: a write whose order cannot change its values (no element
    reads what another writes, no two write one location) is made at once."""
    written: Sequence[int]
    indices: Sequence[Sequence[int]]
    if scatter is None:
        targets = np.arange(out.size, dtype=np.intp).reshape(out.shape)
        written, indices = out.strides, ()
    else:
        targets, written, indices = scatter
    shape = targets.shape
    reads = [np.broadcast_to(x, shape) for x in inputs]
    strides = [written, *(r.strides for r in reads), *indices]
    order, steps = loop_steps(shape, strides, out.itemsize, vectorized=vectorized, grain=grain)
    into = np.unravel_index(targets.ravel()[order], out.shape)
    if _order_free(_addresses(out)[targets.ravel()], [_addresses(r) for r in reads]):
        out[np.unravel_index(targets.ravel(), out.shape)] = np.ravel(fn(*reads))
        return
    where = np.unravel_index(order, shape)
    held: Any = None  # the 0-stride input of a vector row, loaded at its start
    for start, stop, scalar, loads in steps:
        at = tuple(w[start:stop] for w in where)
        values = [x[at] for x in reads]
        if scalar:
            if loads:
                held = values[scalar - 1][0]
            values[scalar - 1] = np.full(stop - start, held, dtype=reads[scalar - 1].dtype)
        out[tuple(i[start:stop] for i in into)] = fn(*values)


def _order_free(written: NDArray[np.int64], reads: Sequence[NDArray[np.int64]]) -> bool:
    """Whether the writes of the addresses ``written`` from the reads of ``reads`` (one address
    per element of the loop, row-major) give the same values in any order: no location written
    twice, and an element reads a written location only where it writes it."""
    if np.unique(written).size != written.size:
        return False
    for read in reads:
        hit = np.isin(read, written)
        if (read[hit] != written[hit]).any():
            return False
    return True


def _addresses(a: NDArray[Any]) -> NDArray[np.int64]:
    """The byte address of each element of ``a``, row-major."""
    index = np.indices(a.shape, dtype=np.int64).reshape(a.ndim, -1)
    steps = np.asarray(a.strides, dtype=np.int64).reshape(a.ndim, 1)
    found: NDArray[np.int64] = layout.address(a) + (index * steps).sum(axis=0)
    return found
