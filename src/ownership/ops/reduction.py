"""Reductions: sum, mean, max/min (whole tensor and along a dim), argmax, all/any."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.dtypes import dtype as DType
from ownership.core.tensor import Tensor
from ownership.ops import checks, cpu
from ownership.ops.argument_values import as_given, as_saved
from ownership.ops.arithmetic import div_scalar
from ownership.ops.common import (
    filled_from,
    needs_grad,
    refuse_out_call,
    run_op,
    wrap,
    written_by_kernel,
    written_fresh,
)
from ownership.ops.leftover_size import shape_changed
from ownership.ops.op_table import ops


class _ValuesIndices(NamedTuple):
    values: Tensor
    indices: Tensor


class ReturnMax(_ValuesIndices):
    """``(values, indices)`` of ``max(dim)``, printed like ``torch.return_types.max``."""

    __slots__ = ()

    def __repr__(self) -> str:
        name = type(self).__name__[6:].lower()
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"


class ReturnMin(ReturnMax):
    """``(values, indices)`` of ``min(dim)``, printed like ``torch.return_types.min``."""

    __slots__ = ()


def dims_of(t: Tensor, dim: Any) -> tuple[int, ...] | None:
    """The dims a reduction over ``dim`` reduces (None: no ``dim`` given), wrapped, checked and
    in order; an empty list of dims means all of them (torch's rule and errors)."""
    if dim is None:
        return None
    nd = t._data.ndim
    if type(dim) is tuple and len(dim) == 1 and type(dim[0]) is int and 0 <= dim[0] < nd:
        return dim  # one dim in range (a gradient summed back to its input's shape): as it is
    if isinstance(dim, tuple | list) and not dim:  # torch: an empty list of dims means all
        return tuple(range(nd))
    ds = dim if isinstance(dim, tuple | list) else (dim,)
    out = [layout.wrap_dim(int(d), nd) for d in ds]
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(out))


def saved_dims(dim: Any) -> tuple[int, ...]:
    """The ``dim`` of a reduction over dims as its node shows it: as given (``as_saved``)."""
    return tuple(as_saved(int(d)) for d in (dim if isinstance(dim, tuple | list) else (dim,)))


def _reduced_dims(saved: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """The dims a node's saved ``dim`` reduced, wrapped and in order (none saved: all)."""
    if not saved:
        return tuple(range(ndim))
    return tuple(sorted(layout.wrap_dim(as_given(d), ndim) for d in saved))


def _unsqueezed_dims(saved: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """The dims ``sum_backward`` unsqueezes the gradient at: the reduced ones, wrapped and in
    order; none when the node saved no dim (``sum(())`` reduced all, but its gradient is only
    expanded, as after a whole sum)."""
    return _reduced_dims(saved, ndim) if saved else ()


def _expand_back(
    g: Tensor, shape: tuple[int, ...], dims: tuple[int, ...] | None, keepdim: bool
) -> Tensor:
    """torch's ``sum_backward``: ``g`` unsqueezed at the reduced ``dims`` (unless ``keepdim``, a
    0-d input or no dims) and expanded to ``shape``, by the ops themselves (the engine's own
    arguments, unparsed), so that under ``create_graph`` the graph has torch's nodes: an
    ``ExpandBackward0`` always, even to a 0-d shape."""
    if dims and shape and not keepdim:
        for d in dims:
            g = ops.unsqueeze(g, d)
    out: Tensor = ops.expand(g, shape)
    return out


_add_reduce: Callable[..., Any] = np.add.reduce
"""``np.sum`` of an array is this ufunc's reduce (the same pairwise sums), called without
``np.sum``'s dispatch."""


def _sum_dtype(t: Tensor, dtype: DType | None) -> DType:
    if dtype is not None:
        return dtype
    return t.dtype if t.dtype.is_floating_point else dtypes.int64


def _total(t: Tensor, dt: DType) -> Tensor:
    """The sum of all elements of ``t`` in dtype ``dt``, as a fresh 0-d tensor."""
    # reduced into a new 0-d array (numpy would return a scalar, to be converted back)
    total = np.empty((), dt.np)
    _add_reduce(t._data, None, dt.np, total)
    return Tensor._wrap(total, dt)


# The backward formulas read what they need from the node's saved values (one function for all
# nodes, no closure per op): ``self_sym_sizes``, ``dim``, ``keepdim``, ``self_sym_numel``.
def _bw_sum_all(node: OpNode, s: Saved, g: Grads) -> Grads:
    return (_expand_back(g[0], s["self_sym_sizes"], None, False),)


def _bw_sum_dims(node: OpNode, s: Saved, g: Grads) -> Grads:
    shape = s["self_sym_sizes"]
    return (_expand_back(g[0], shape, _unsqueezed_dims(s["dim"], len(shape)), s["keepdim"]),)


def _bw_mean_all(node: OpNode, s: Saved, g: Grads) -> Grads:
    # torch's ``mean_backward``: the expanded gradient divided by the count, a ``div.Scalar``
    return (div_scalar(_expand_back(g[0], s["self_sym_sizes"], None, False), s["self_sym_numel"]),)


def _bw_mean_dims(node: OpNode, s: Saved, g: Grads) -> Grads:
    shape = s["self_sym_sizes"]
    back = _expand_back(g[0], shape, _unsqueezed_dims(s["dim"], len(shape)), s["keepdim"])
    return (div_scalar(back, _count(shape, _reduced_dims(s["dim"], len(shape)))),)


def _count(shape: tuple[int, ...], dims: tuple[int, ...]) -> int:
    """How many elements each mean over ``dims`` of a tensor of ``shape`` averages."""
    return int(np.prod([shape[d] for d in dims])) if shape else 1


def sum_of(
    t: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: DType | None = None
) -> Tensor:
    """Sum (``SumBackward0`` whole, ``SumBackward1`` over dims)."""
    # (an integer result of a tensor with a history is refused once computed, by ``attach``:
    # torch's ``set_history``)
    recorded = needs_grad(t)
    args = (t, dim, keepdim, dtype)
    if dim is None:
        whole = {"self_sym_sizes": tuple(t._data.shape)} if recorded else None
        return run_op((t,), recorded, _sum, "SumBackward0", _bw_sum_all, whole, args=args)
    ctx: Saved | None = (
        {"dim": saved_dims(dim), "keepdim": keepdim, "self_sym_sizes": tuple(t._data.shape)}
        if recorded
        else None
    )
    return run_op((t,), recorded, _sum, "SumBackward1", _bw_sum_dims, ctx, args=args)


def _sum(t: Tensor, dim: Any, keepdim: bool, dtype: DType | None) -> Tensor:
    """The kernel of :func:`sum_of`."""
    dt = _sum_dtype(t, dtype)
    dims = dims_of(t, dim)
    if dims is None:
        out = _total(t, dt)
    else:
        axes = dims if t._data.ndim else None
        total = _add_reduce(t._data, axis=axes, keepdims=keepdim, dtype=dt.np)
        out = wrap(layout.as_row_major(total), dt)
    # the reduction's fill_ (an empty one: sum_out's zero_)
    return written_by_kernel(out, t)


def mean(
    t: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: DType | None = None
) -> Tensor:
    """Mean (``MeanBackward0`` whole, ``MeanBackward1`` over dims); floating dtypes only."""
    dt = dtype or t.dtype
    if not dt.is_floating_point:
        which = "Input" if dtype is None else "Optional"  # torch names the dtype it read
        raise RuntimeError(
            f"mean(): could not infer output dtype. {which} dtype must be either a floating point "
            f"or complex dtype. Got: {dt.short}"
        )
    recorded = needs_grad(t)
    shape, n = tuple(t._data.shape), t._data.size
    args = (t, dim, keepdim, dt)
    if dim is None:
        whole = {"self_sym_sizes": shape, "self_sym_numel": n} if recorded else None
        return run_op((t,), recorded, _mean, "MeanBackward0", _bw_mean_all, whole, args=args)
    ctx: Saved | None = (
        {"dim": saved_dims(dim), "keepdim": keepdim, "self_sym_sizes": shape, "self_sym_numel": n}
        if recorded
        else None
    )
    return run_op((t,), recorded, _mean, "MeanBackward1", _bw_mean_dims, ctx, args=args)


def _mean(t: Tensor, dim: Any, keepdim: bool, dt: DType) -> Tensor:
    """The kernel of :func:`mean`, in dtype ``dt``."""
    dims = dims_of(t, dim)  # torch's mean kernel checks its dims before it calls sum_out
    refuse_out_call("sum", t)  # torch's mean kernel sums with sum_out
    if dims is None:
        out = _total(t, dt)
        # 0/0 is nan: no numpy warning
        np.true_divide(out._data, t._data.size, out=out._data, dtype=dt.np)
    else:
        axes = dims if t._data.ndim else None
        total = _add_reduce(t._data, axis=axes, keepdims=keepdim, dtype=dt.np)
        mean = np.true_divide(total, _count(t._data.shape, dims), dtype=dt.np)
        out = wrap(layout.as_row_major(mean), dt)
    return written_by_kernel(out, t, writes=2)  # torch's mean kernel: sum_out, then div_


def _bw_max_all(node: OpNode, s: Saved, g: Grads) -> Any:
    # torch's evenly_distribute_backward: the gradient is shared by the elements equal to the
    # result (NaN counts as equal to a NaN result); where none is, it is zero. Its CPU formula,
    # op for op: ``grad.new_zeros(self.sizes()).masked_fill_(mask, grad / mask.sum())`` (row-major
    # whatever ``self``'s layout; ``MaskedFillBackward1`` under create_graph)
    self, result = s["self"], s["result"]
    nan = bool(np.isnan(result._data).any())
    mask = Tensor._wrap(np.isnan(self._data)) if nan else self == result
    zeros = g[0].new_zeros(self._data.shape)
    return (zeros.masked_fill_(mask, g[0] / mask.sum()),)


def _bw_max_dim(node: OpNode, s: Saved, g: Grads) -> Any:
    """torch's ``zeros(sizes).scatter_(dim, indices, grad)``: the gradient placed at the chosen
    elements (the saved ``indices``), zeros elsewhere (an infinite gradient leaves no nan beside
    it), in a new tensor written twice (``zero_``, ``scatter_``: version 2)."""
    shape, keepdim, gg = s["self_sym_sizes"], s["keepdim"], g[0]
    nd = len(shape)
    mask: NDArray[np.bool_]
    if nd == 0:
        mask = np.ones((), dtype=np.bool_)
    else:
        d = layout.wrap_dim(as_given(s["dim"]), nd)
        idx = s["indices"]._data
        mask = np.zeros(shape, dtype=np.bool_)
        np.put_along_axis(mask, idx if keepdim else np.expand_dims(idx, d), True, axis=d)
        if not keepdim:
            gg = gg.unsqueeze(d)
    return (written_fresh(ops.where(Tensor._wrap(mask, dtypes.bool_), gg, 0.0), 2),)


def _vector_pick(a: Any, b: Any, is_max: bool) -> Any:
    """One lane of torch's vector ``maximum``/``minimum`` (``_mm256_max_ps(a, b)``): ``a`` when
    it is strictly greater (less), else ``b``: of two equal zeros, the second."""
    return a if (a > b if is_max else a < b) else b


def whole_extreme(arr: NDArray[Any], is_max: bool) -> Any:
    """``t.max()``/``t.min()`` of a non-empty array as torch's ``max_all``/``min_all`` kernel
    (``vec::reduce_all`` over the contiguous elements) gives it, the sign of a zero included.

    Its vectors hold ``simd()`` bytes: each lane folds the elements at its position modulo the
    lane count (of equal ones the later wins, so a lane's zero is the sign of its last zero);
    then the lanes combine, float32 on x86's AVX2 kernels by three shuffles (lane ``i`` with
    ``i ^ 4``, ``i ^ 2``, ``i ^ 1``), any other lane 0 with lanes 1, 2, ... in turn; fewer
    elements than lanes fold in order. Measured on an AVX-512 CPU (torch 2.13 running its AVX2
    kernels): 4,481 random vectors of 1 to 100 elements whose result is a zero, float32 and
    float64, all agree; numpy's own lanes give the other zero on about a third."""
    value = arr.max() if is_max else arr.min()
    if value != 0 or arr.dtype.kind != "f":  # NaN propagates; only a zero's sign is at stake
        return value
    flat = np.ascontiguousarray(arr).reshape(-1)
    width, fused = cpu.simd()
    lanes = width // flat.itemsize
    if flat.size < lanes:
        acc = flat[0]
        for x in flat[1:]:
            acc = _vector_pick(acc, x, is_max)
        return acc
    v = []
    for j in range(lanes):
        col = flat[j::lanes]
        best = col.max() if is_max else col.min()
        v.append(col[np.flatnonzero(col == 0)[-1]] if best == 0 else best)
    if flat.dtype == np.float32 and width == 32 and fused:  # AVX2's shuffle reduction
        for step in (4, 2, 1):
            v = [_vector_pick(v[i], v[i ^ step], is_max) for i in range(lanes)]
        return v[0]
    acc = v[0]
    for x in v[1:]:
        acc = _vector_pick(acc, x, is_max)
    return acc


def _extreme(t: Tensor, dim: Any, keepdim: bool, which: str) -> Any:
    arr = t._data
    name = which.capitalize()
    recorded = needs_grad(t)
    if dim is None:

        def whole() -> Tensor:
            if arr.size == 0:
                raise RuntimeError(
                    f"{which}(): Expected reduction dim to be specified for input.numel() == 0. "
                    "Specify the reduction dim with the 'dim' argument."
                )
            return written_by_kernel(wrap(whole_extreme(arr, which == "max"), t.dtype), t)

        def save(node: OpNode) -> None:
            node.save("self", t)

        return run_op(
            (t,), recorded, whole, f"{name}Backward1", _bw_max_all, None, save, OpNode.save_result
        )
    found: list[Tensor] = []  # the kernel's second result, the indices

    def along_dim() -> Tensor:
        nd = arr.ndim
        d = layout.wrap_dim(int(dim), nd)
        checks.reduce_dim(which, t, d)
        if nd == 0:
            idx_arr = np.zeros((), dtype=np.int64)
            val_arr = arr.copy()
        else:
            idx_arr = (arr.argmax(axis=d) if which == "max" else arr.argmin(axis=d)).astype(
                np.int64
            )
            val_arr = np.take_along_axis(arr, np.expand_dims(idx_arr, d), axis=d)
            if not keepdim:
                val_arr = np.squeeze(val_arr, axis=d)
            else:
                idx_arr = np.expand_dims(idx_arr, d)
        values = wrap(val_arr, t.dtype)
        indices = wrap(idx_arr, dtypes.int64)
        if nd == 0:  # torch's kernel: ``values.fill_(self)``, then ``indices.fill_(0)``
            filled_from(values, t)
            written_by_kernel(indices, t)
        elif not keepdim:
            # torch's kernel (``compare_base_kernel``) unsqueezes both results at ``d`` in place
            # to reduce into them, then squeezes them back: ``unsqueeze_``, ``squeeze_``
            kept = (*arr.shape[:d], 1, *arr.shape[d + 1 :])
            shape_changed(values, kept)
            shape_changed(indices, kept)
            if values._data.size:
                written_by_kernel(values, t, writes=2)
                written_by_kernel(indices, t, writes=2)
        found.append(indices)
        return values

    def save_indices(node: OpNode, values: Tensor) -> None:
        node.save("indices", found[0])

    ctx = (
        {"dim": as_saved(int(dim)), "keepdim": keepdim, "self_sym_sizes": tuple(arr.shape)}
        if recorded
        else None
    )
    values = run_op(
        (t,), recorded, along_dim, f"{name}Backward0", _bw_max_dim, ctx, after=save_indices
    )
    return (ReturnMax if which == "max" else ReturnMin)(values, found[0])


def max_of(t: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``max()`` of all elements, or ``(values, indices)`` along ``dim``."""
    return _extreme(t, dim, keepdim, "max")


def min_of(t: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``min()`` of all elements, or ``(values, indices)`` along ``dim``."""
    return _extreme(t, dim, keepdim, "min")


def argmax(t: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the maximum (not differentiable)."""
    return _arg(t, dim, keepdim, "argmax")


def _arg(t: Tensor, dim: int | None, keepdim: bool, which: str) -> Tensor:
    if t.dtype is dtypes.bool_:
        raise RuntimeError(f"{which}(): does not support bool input")
    d = None if dim is None else layout.wrap_dim(dim, t._data.ndim)
    checks.reduce_dim(which, t, d)
    find = np.argmax if which == "argmax" else np.argmin
    if d is None or t._data.ndim == 0:
        out: Any = find(t._data)
        if keepdim:
            out = np.reshape(out, (1,) * t._data.ndim)
        return wrap(out, dtypes.int64)
    return wrap(find(t._data, axis=d, keepdims=keepdim), dtypes.int64)


def argmin(t: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the minimum (not differentiable)."""
    return _arg(t, dim, keepdim, "argmin")


def all_of(t: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether every element is true, over all of ``t`` or over ``dim`` (see :func:`_truth`)."""
    return _truth(np.all, t, dim, keepdim)


def any_of(t: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether some element is true, over all of ``t`` or over ``dim`` (see :func:`_truth`)."""
    return _truth(np.any, t, dim, keepdim)


def _truth(reduce: Any, t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """``all``/``any`` as torch reduces them (a bool tensor, never recorded): ``dim`` None reduces
    every dim, an int or a tuple of ints those dims (torch's errors for a dim out of range or
    repeated); an empty tuple reduces none (``x.all(())`` is ``x != 0``, unlike ``sum``'s)."""
    data = t._data
    if isinstance(dim, tuple | list) and not dim:
        return wrap(data.astype(np.bool_), dtypes.bool_)
    dims = None if dim is None else dims_of(t, dim)
    if dims is None or data.ndim == 0:
        out = reduce(data)
        result = wrap(np.reshape(out, (1,) * data.ndim) if keepdim else out, dtypes.bool_)
    else:
        result = wrap(layout.as_row_major(reduce(data, axis=dims, keepdims=keepdim)), dtypes.bool_)
    return written_by_kernel(result, t)  # the reduction's fill_ of its identity
