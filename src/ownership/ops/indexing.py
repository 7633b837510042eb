"""Indexing: basic indices give views, advanced ones copies; assignment is always in place.

``x[1]`` is ``select``, ``x[1:]`` a ``slice``, ``x[None]`` an ``unsqueeze`` and ``x[...]`` an
alias, each a view (torch's grad_fn names). Integer-array and boolean-mask indices copy
(``IndexBackward0``). ``x[i] = v`` copies into the view ``x[i]`` (so the base gets
``CopySlices``); ``x[mask] = v`` is ``index_put_``. Either way the version goes up by one. A key
mixing the two is torch's ``applySlicing``: its ints, slices and Nones first, as views, then the
advanced indices on that view (``x[1, idx]`` is ``x.select(0, 1)[idx]``). How a key is read is
:mod:`ownership.ops.index_keys`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import check_inputs_apart, overlaps_itself, run_inplace
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.ops import checks, views
from ownership.ops.common import (
    lay_out_as,
    needs_grad,
    operand,
    raw,
    run_op,
    sum_to,
    touch_history,
    wrap,
    written_fresh,
)
from ownership.ops.index_keys import (
    byte_masks,
    check_advanced,
    dims_indexed,
    index_tensors,
    is_basic,
    is_mask,
    keys,
    np_key,
    numpy_index,
    sequence_as_tuple,
    warn_byte_index,
)
from ownership.ops.index_layout import index_strides
from ownership.ops.leftover_size import leftover_size
from ownership.ops.loop_order import Kernel, Scatter
from ownership.ops.masking import fill_value, warn_expanded
from ownership.ops.op_table import ops


def _covers(k: slice, size: int) -> bool:
    """torch skips a slice that covers its whole dimension: start 0, stop at or past the end,
    step 1 (a negative start is not normalized first)."""
    return k.start in (None, 0) and k.step in (None, 1) and (k.stop is None or k.stop >= size)


def _basic(t: Tensor, key: tuple[Any, ...], single: bool, alias: bool = True) -> Tensor:
    """The view ``t[key]`` selects; ``single``: the key is one slice (torch slices even a whole
    dimension then); ``alias``: a key that selects all of ``t`` gives an alias (``t[...]``),
    else ``t`` itself (what ``t[...] = v`` writes)."""
    if t._data.ndim == 0 and any(
        k is not None and k is not Ellipsis and not isinstance(k, slice) for k in key
    ):
        index = next(k for k in key if k is not None and k is not Ellipsis)
        if not isinstance(index, Tensor) and int(index) != 0:  # torch reads a leftover size
            idx, size = int(index), leftover_size(t)
            if -size <= idx < size:
                views.select(t, 0, idx)  # refuses a 0-dim tensor
            raise IndexError(f"index {idx} is out of bounds for dimension 0 with size {size}")
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
            "in C++ to convert a 0-dim tensor to a number"
        )
    out = t
    dim = 0
    real = 0  # the dimension of ``t`` being indexed (torch reports errors with it)
    consumed = 0  # a loop, not ``sum`` of a generator: this runs for every ``t[i]``
    for k in key:
        if k is not None and k is not Ellipsis:
            consumed += 1
    if consumed > t._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    for k in key:
        if k is None:
            out = views.unsqueeze(out, dim)
            dim += 1
        elif k is Ellipsis:
            dim += t._data.ndim - consumed
            real += t._data.ndim - consumed
        elif isinstance(k, slice):
            if k.step is not None and k.step < 0:  # checked before the slice reads a history
                raise ValueError("step must be greater than zero")
            if single or not _covers(k, out._data.shape[dim]):
                out = views.slice_dim(out, dim, k.start, k.stop, k.step)
            dim += 1
            real += 1
        else:
            # a Python int (the common key) is its own ``int()``: asked first, as an
            # ``isinstance`` of the Tensor (its class has a metaclass) costs more
            idx = k if type(k) is int else int(k._data) if isinstance(k, Tensor) else int(k)
            size = out._data.shape[dim]
            if idx < -size or idx >= size:
                raise IndexError(
                    f"index {idx} is out of bounds for dimension {real} with size {size}"
                )
            out = views.select(out, dim, idx)
            real += 1
    if out is t and alias:
        out = views.alias(t)
    return out


def _plain_key(t: Tensor, key: Any) -> tuple[Any, ...] | None:
    """The key as a tuple when it is Python ints and slices of ints with a step other than 0,
    no more than ``t`` has dims (``keys`` accepts it as it is), else None."""
    tkey = key if type(key) is tuple else (key,)
    if len(tkey) > t._data.ndim:
        return None
    for k in tkey:
        if type(k) is slice:
            start, stop, step = k.start, k.stop, k.step
            if not (
                (start is None or type(start) is int)
                and (stop is None or type(stop) is int)
                and (step is None or (type(step) is int and step != 0))
            ):
                return None
        elif type(k) is not int:
            return None
    return tkey


def _sliced(t: Tensor, tkey: tuple[Any, ...]) -> tuple[Tensor, tuple[Any, ...]] | None:
    """torch's ``applySlicing`` for a key that mixes basic and advanced indices: the view its
    ints, slices and Nones select (``SelectBackward0`` ...), and the key left for that view
    (``x[1, idx]`` is ``x.select(0, 1)[idx]``); None when the basic indices select all of ``t``.
    A bool (a Python one or 0-d) is an unsqueeze and an index of the new dim: ``[0]`` for True,
    ``[]`` for False (torch's ``boolToIndexingTensor``: ``x[True, 1, idx]`` is
    ``x.unsqueeze(0).select(1, 1)[[0], :, idx]``)."""
    basic: list[Any] = []
    rest: list[Any] = []
    for k in tkey:
        if isinstance(k, bool) or (isinstance(k, np.ndarray | Tensor) and _is_bool_0d(k)):
            basic.append(None)
            truth = bool(k._data) if isinstance(k, Tensor) else bool(k)
            rest.append(np.zeros(1 if truth else 0, dtype=np.int64))
        elif is_basic(k) and k is not None and k is not Ellipsis and not isinstance(k, slice):
            basic.append(k)  # an int: selected, no dimension left
        elif is_basic(k):
            basic.append(k)
            rest.append(k if k is Ellipsis else slice(None))
        else:
            basic.extend([slice(None)] * dims_indexed(k))
            rest.append(k)
    view = _basic(t, tuple(basic), single=False, alias=False)
    return None if view is t else (view, tuple(rest))


def _is_bool_0d(k: np.ndarray | Tensor) -> bool:
    return k.ndim == 0 and (k.dtype is dtypes.bool_ or getattr(k.dtype, "kind", "") == "b")


def getitem(t: Tensor, key: Any) -> Tensor:
    """``t[key]``: a view for basic keys, a copy (``IndexBackward0``) for advanced ones.

    In torch's order (``applySlicing``): each index applied in turn, a view op reading ``t``'s
    history as it records, after that index's own check (an int's bounds, a slice's step); an
    advanced index reads it before checking its indices."""
    single = isinstance(key, slice)
    plain = _plain_key(t, key)
    if plain is not None:  # the common key: nothing for ``keys`` to refuse, all basic
        return _basic(t, plain, single)
    key = sequence_as_tuple(key)
    tkey = keys(t, key)
    if all(is_basic(k) for k in tkey):
        return _basic(t, tkey, single)
    masked = bool(byte_masks(key))
    if masked:
        warn_byte_index()
    split = _sliced(t, tkey)
    if split is not None:
        return getitem(*split)
    touch_history(t)  # torch's index op collects its input's edge before its kernel's checks
    # the index tensors are the op's arguments too: a normal one (a list becomes one) runs
    # autograd even for an inference ``t`` that requires grad (torch's dispatch keys)
    recording = needs_grad(t, *[k for k in tkey if not is_basic(k)])
    npkey = np_key(tkey)
    shape = tuple(t._data.shape)

    def save(node: OpNode) -> None:  # torch saves the index tensors before its kernel's checks
        node.save("indices", index_tensors(t, tkey, npkey))

    def kernel() -> Tensor:
        check_advanced(t, npkey)
        arr = numpy_index(t._data, npkey)
        found = index_strides(t._data.shape, t._stride(), npkey)
        if found is None:  # row-major: one copy in that order
            return wrap(np.array(arr, copy=True, order="C"), t.dtype)
        out = wrap(np.array(arr, copy=True), t.dtype)
        lay_out_as(out, found)
        return out

    return run_op(
        (t,),
        recording,
        kernel,
        "IndexBackward0",
        lambda node, s, g: (embed(g[0], shape, npkey, accumulate=True, masked=masked),),
        {"self_sym_sizes": shape} if recording else None,
        save,
    )


def embed(
    g: Tensor, shape: tuple[int, ...], key: Any, accumulate: bool = False, masked: bool = False
) -> Tensor:
    """Zeros of ``shape`` with ``g`` placed (or summed) at ``key``: the backward of indexing.
    ``masked``: the key held a uint8 mask, which torch's ``index_put_`` warns of again; the
    warning names the engine's line, as torch's names its own Python ``backward``."""
    if masked:
        warn_byte_index(in_backward=True)

    def kernel() -> Tensor:
        buf = np.zeros(shape, dtype=g._data.dtype)
        if accumulate:
            np.add.at(buf, key, g._data)
        else:
            buf[key] = g._data
        out = Tensor._wrap(buf, g.dtype)
        if accumulate:  # IndexBackward0 writes in place: zeros(...).index_put_(key, g, True)
            written_fresh(out)
        return out

    return run_op(
        (g,),
        needs_grad(g),
        kernel,
        "IndexingBackwardBackward0",
        lambda node, s, gg: (getitem(gg[0], key),),
    )


def _copy_to(target: Tensor, value: Any) -> None:
    """torch's ``copy_to`` for ``t[key] = value``: a value of the target's shape is copied; a 0-d
    one (a number becomes one, of the target's dtype) fills; any other loses its leading size-1
    dims and is expanded to the target's shape first, so its shape error comes before the
    in-place checks."""
    if not isinstance(value, Tensor):
        value = Tensor._wrap(np.asarray(value).astype(target.dtype.np), target.dtype)
    shape, target_shape = tuple(value._data.shape), tuple(target._data.shape)
    if shape == target_shape:
        OPS["copy_"](target, value)
    elif not shape:
        OPS["fill_"](target, value)
    else:
        source = views.view(value, without_leading_ones(shape))
        if without_leading_ones(shape) != target_shape:
            source = views.expand(source, target_shape)
        OPS["copy_"](target, source)


def without_leading_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    """An assigned value's shape as torch's ``t[key] = value`` reads it: its leading size-1 dims
    dropped (``slicePrefix1sDims``)."""
    lead = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    return shape[lead:]


def expandable(shape: tuple[int, ...], to: tuple[int, ...]) -> bool:
    """torch's ``is_expandable_to``: ``shape`` grows into ``to`` by expanding size-1 dims and
    adding leading ones (never the other way, as numpy's broadcasting would)."""
    return len(shape) <= len(to) and all(
        n in (1, d) for n, d in zip(reversed(shape), reversed(to), strict=False)
    )


EXPANDED_INDEX_PUT = (
    "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
    "tensor"
)


def index_put_loop(arr: NDArray[Any], npkey: tuple[Any, ...]) -> Scatter:
    """The loop of torch's ``index_put_`` of ``arr[npkey]`` (``make_info``, ``restride_src``
    and ``make_index_put_iterator`` in ``aten/src/ATen/native/TensorAdvancedIndexing.cpp``):
    over the indexing result, the indexed dimensions first when they are not adjacent
    (``transposeToFront``); each index tensor an int64 one (a mask's, a column of its
    ``nonzero()``), as :class:`~ownership.ops.loop_order.Scatter` takes them."""
    taken = sum(_dims_of(k) for k in npkey if k is not Ellipsis)
    full: list[Any] = []
    for k in npkey:
        full += [slice(None)] * (arr.ndim - taken) if k is Ellipsis else [k]
    full += [slice(None)] * (arr.ndim - sum(_dims_of(k) for k in full))
    plain: list[int] = []  # the strides of the dims no index takes, before and after them
    first = last = -1  # the key's entries of the first and the last index
    columns: list[tuple[NDArray[Any], int]] = []  # each index array, its bytes per element
    dim = 0
    for at, k in enumerate(full):
        if isinstance(k, np.ndarray):
            masks = np.nonzero(k) if k.dtype == bool else None
            columns += [(k, 8)] if masks is None else [(c, 8 * k.ndim) for c in masks]
            first, last = (at if first < 0 else first), at
            dim += _dims_of(k)
        else:
            plain.append(arr.strides[dim])
            dim += 1
    block = np.broadcast_shapes(*(c.shape for c, _ in columns))
    adjacent = all(isinstance(k, np.ndarray) for k in full[first : last + 1])
    cut = sum(not isinstance(k, np.ndarray) for k in full[:first]) if adjacent else 0
    before, after = plain[:cut], plain[cut:]
    indices = []
    for column, item in columns:
        own = np.broadcast_to(column, block).strides  # 0 along a broadcast dimension
        steps = tuple(s // column.itemsize * item for s in own)
        indices.append((0,) * len(before) + steps + (0,) * len(after))
    targets = np.arange(arr.size, dtype=np.intp).reshape(arr.shape)[npkey]
    return Scatter(targets, (*before, *(0,) * len(block), *after), indices)


def _dims_of(k: Any) -> int:
    """The dimensions of the indexed tensor one entry of a numpy key takes."""
    if isinstance(k, np.ndarray) and k.dtype == bool:
        return k.ndim
    return 0 if k is None else 1


def _written(values: NDArray[Any]) -> NDArray[Any]:
    """``index_put_``'s kernel (``cpu_index_kernel``): each value written as it is read."""
    return values


def setitem(t: Tensor, key: Any, value: Any) -> None:
    """``t[key] = value``: in place, one version bump.

    Basic indices: ``value`` is copied into the view they select (:func:`_copy_to`). Advanced
    ones: torch's ``index_put_``, which writes an expanded tensor (with its warning); one mask
    and a one-element value is its ``masked_fill_`` of that value (the mask may be ``t``'s own
    elements); otherwise neither the value nor an index tensor may share memory with ``t``."""
    checks.assigned(t.dtype, value)
    key = sequence_as_tuple(key)
    tkey = keys(t, key)
    if all(is_basic(k) for k in tkey):
        _copy_to(_basic(t, tkey, single=False, alias=False), value)
        return
    masks = byte_masks(key)
    split = _sliced(t, tkey)
    if split is not None:  # torch's index_put_ on the view the basic indices select
        t, tkey = split
    npkey = np_key(tkey)
    v = operand(value)
    if isinstance(v, Tensor) and without_leading_ones(v._data.shape) != v._data.shape:
        v = views.view(v, without_leading_ones(v._data.shape))  # torch's slicePrefix1sSize
    vt = v if isinstance(v, Tensor) else None
    value_needed = vt is not None and vt.requires_grad  # decided now, not at backward time
    target_shape: tuple[int, ...] = ()  # the indexing result's, once the indices are checked
    vshape = tuple(np.shape(raw(v)))
    # torch's index_put_ of a one-element value through one mask (the only index left once the
    # basic ones are applied) is masked_fill_ of that value, which takes no uint8 mask
    advanced = [k for k in tkey if not is_basic(k)]
    filled = len(advanced) == 1 and int(np.prod(vshape)) == 1 and is_mask(advanced[0])
    indices = [k for k in tkey if isinstance(k, Tensor)]

    def check_indices() -> None:
        """torch's ``make_info``: the indices' dtypes and masks' shapes, then their broadcast
        (after the overlap checks: ``x[[0, 1], [0, 1, 2]] = x[0, 0]`` names the overlap)."""
        nonlocal target_shape
        check_advanced(t, npkey)
        if masks and not filled:
            warn_byte_index()
        target_shape = tuple(np.shape(numpy_index(t._data, npkey)))

    def check_args() -> None:  # index_put_'s own checks, made after the autograd ones
        if overlaps_itself(t):  # torch writes an expanded tensor, with a warning
            warn_at_user(EXPANDED_INDEX_PUT)
        if filled:  # masked_fill_ of value.item(): its own checks, no others
            check_indices()
            if masks:
                raise RuntimeError(
                    "masked_fill_ only supports boolean masks, but got mask with dtype unsigned "
                    "char"
                )
            warn_expanded(t)
            check_inputs_apart(t, indices)
            return
        check_inputs_apart(t, (vt, *indices), full=True)
        check_indices()
        if not expandable(without_leading_ones(vshape), target_shape):
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(without_leading_ones(vshape))} "
                f"cannot be broadcast to indexing result of shape {list(target_shape)}"
            )
        if vt is not None and vt.dtype is not t.dtype:
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{t.dtype.short} for the destination and {vt.dtype.short} for the source."
            )

    def assigned() -> Any:
        values = np.asarray(raw(v))  # its leading dims beyond the target's are 1s (checked)
        values = values.reshape(values.shape[max(0, values.ndim - len(target_shape)) :])
        return np.broadcast_to(values, target_shape)

    # torch's value: index_put_ reads it as its loop goes, masked_fill_ once (``value.item()``),
    # converted to t's dtype (checked: NaN into an integer tensor is refused) after its checks
    value_read = [np.asarray(raw(v)).reshape(without_leading_ones(vshape))]

    def compute() -> Any:
        new = t._data.copy()
        if filled:
            value_read[0] = fill_value(t, v).reshape(())
        new[npkey] = value_read[0] if filled else assigned()
        return new

    def scatter() -> Scatter:
        return index_put_loop(t._data, npkey)

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        kept = np.ones(g[0]._data.shape, dtype=bool)  # zeros where written (never grad * mask:
        kept[npkey] = False  # an inf gradient there would make NaN)
        gv = None
        if value_needed and vt is not None:  # summed to the shape read (its view gives its 1s)
            gv = sum_to(getitem(g[0], tkey), vshape)
        return (ops.where(Tensor._wrap(kept, dtypes.bool_), g[0], 0), gv)

    run_inplace(
        t,
        (vt,),
        needs_grad(t, vt, *advanced),  # the indices are operands too (a list: a normal tensor)
        compute,
        vt.dtype if vt is not None and vt._data.ndim and not filled else t.dtype,
        "IndexPutBackward0",
        bw,
        {"accumulate": False},
        save=lambda node: node.save("indices", index_tensors(t, tkey, npkey)),
        check_overlap=False,  # index_put_'s own, in check_args
        check_args=check_args,
        kernel=lambda: Kernel(_written, False, 3000, scatter),
        reads=value_read,
        keyed=advanced,
    )
