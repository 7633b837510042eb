"""The geometry of ``view`` and ``reshape``: the sizes and strides of a view with the sizes asked
for, remembered by the viewed array's layout and the request (every part of it a pure function of
these), so that a chain of views computes each geometry once; :func:`op_geometry` remembers the
geometry of the other view ops (``t``, ``transpose``, ``expand``, ``select``...) the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ownership.core import layout
from ownership.core.layout import Size
from ownership.ops import view_shapes
from ownership.ops.argument_values import as_saved

if TYPE_CHECKING:
    from ownership.core.tensor import Tensor

G = TypeVar("G")


def shape_arg(shape: tuple[Any, ...]) -> tuple[int, ...]:
    """The sizes of a sizes argument given one by one or as one tuple, list or ``Size``, as ints."""
    if len(shape) == 1 and isinstance(shape[0], tuple | list | Size):
        return tuple(int(s) for s in shape[0])
    return tuple(int(s) for s in shape)


Geometry = tuple[tuple[int, ...], tuple[int, ...] | None, bool, dict[str, Any], bool]
"""What a view of a shape needs: its sizes; its strides (None when no view can have them);
whether numpy's ``reshape`` of the viewed array makes exactly that view; the saved values of its
node (``self_sym_sizes``: the viewed sizes); whether the viewed tensor is contiguous (torch's
rule, ``Tensor.is_contiguous``: it names ``reshape``'s node)."""

_VIEW_GEOMETRY: dict[tuple[Any, ...], Geometry] = {}
"""Geometries already computed, by the viewed array's sizes and byte strides, the tensor's dtype
(its item size) and the sizes asked for (all Python ints): every part of a geometry is a pure
function of these."""
_VIEW_GEOMETRY_LIMIT = 4096


def by_reshape(arr: Any, new: tuple[int, ...], strides: tuple[int, ...] | None) -> bool:
    """Whether ``arr.reshape(new)`` is the view with these element strides: numpy reshapes a
    C-contiguous array without copying, to row-major strides, which are often torch's too."""
    if strides is None or not arr.flags.c_contiguous:
        return False
    item = arr.itemsize
    return bool(arr.reshape(new).strides == tuple(s * item for s in strides))


def view_geometry(t: Tensor, shape: tuple[Any, ...]) -> Geometry:
    """The geometry of ``t.view(*shape)`` (torch's rules; torch's error for sizes that do not fit).

    An empty tensor's strides are not its array's (see ``Tensor.stride``): its geometry is never
    remembered, so never found (a remembered one has the same sizes, hence elements).
    A request equal to a remembered one converts to the same ints (``4.0 == 4``), so a hit is
    always right; only requests of Python ints are remembered (no tensor kept alive). A remembered
    geometry's saved values are shared by the nodes of its views (no node changes them) and its
    tuples outlive a collection: a view then adds no new object for the cyclic GC to traverse."""
    arr = t._data
    key = (arr.shape, arr.strides, t.dtype, shape)
    try:
        found = _VIEW_GEOMETRY.get(key)
        remembered = True
    except TypeError:  # a list in the request: not remembered
        found, remembered = None, False
    if found is not None:
        return found
    new = view_shapes.infer_size(shape_arg(shape), t._numel())
    viewed = t._stride()
    strides = view_shapes.view_strides(arr.shape, viewed, new)
    saved = {"self_sym_sizes": arr.shape}
    contiguous = layout.is_contiguous(arr.shape, viewed)
    geometry = new, strides, by_reshape(arr, new, strides), saved, contiguous
    flat = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple) else shape
    if remembered and arr.size and all(type(s) is int for s in flat):  # no value kept alive
        if len(_VIEW_GEOMETRY) >= _VIEW_GEOMETRY_LIMIT:
            _VIEW_GEOMETRY.clear()
        _VIEW_GEOMETRY[key] = geometry
    return geometry


_OP_GEOMETRY: dict[tuple[Any, ...], Any] = {}
"""Geometries of the other view ops, by the op's geometry function, the viewed array's sizes and
byte strides, the tensor's dtype, and the op's arguments (as :data:`_VIEW_GEOMETRY`)."""


def op_geometry(compute: Callable[..., G], t: Tensor, args: tuple[Any, ...]) -> G:
    """``compute(t, *args)``, remembered when ``t`` has elements and ``args`` are Python ints.

    ``compute`` must be a pure function of ``t``'s sizes and strides and of ``args`` (raising
    torch's error, which is then not remembered), and what it returns must never be changed:
    the nodes of its views share it, so a view adds no new object for the cyclic GC to traverse.
    Only exact ints are looked up: an equal float or bool (``1.0 == 1``) may behave otherwise."""
    for a in args:
        if type(a) is not int:
            return compute(t, *args)
    arr = t._data
    key = (compute, arr.shape, arr.strides, t.dtype, args)
    found: G | None = _OP_GEOMETRY.get(key)
    if found is None:
        found = compute(t, *args)
        # an empty tensor's strides are not its array's (see ``Tensor.stride``): its geometry is
        # never remembered, so never found (a remembered one has the same sizes, hence elements)
        if arr.size:
            if len(_OP_GEOMETRY) >= _VIEW_GEOMETRY_LIMIT:
                _OP_GEOMETRY.clear()
            _OP_GEOMETRY[key] = found
    return found


# The geometries of the other view ops (torch's rules and errors), for ``op_geometry``: each
# returns its view's sizes, strides and saved values, and what the op needs to make its array.


def t_geometry(t: Tensor) -> tuple[tuple[int, ...], tuple[int, ...], dict[str, Any]]:
    """``t.t()``: sizes and strides reversed (torch's error above 2 dims)."""
    nd = t._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return tuple(reversed(t._data.shape)), tuple(reversed(t._stride())), {}


def permute_geometry(
    t: Tensor, *dims: Any
) -> tuple[tuple[int, ...], tuple[int, ...], dict[str, Any], tuple[int, ...]]:
    """``t.permute(*dims)``: sizes and strides reordered (torch's errors for bad orders), and
    the dims wrapped."""
    nd = t._data.ndim
    given = shape_arg(dims)
    ds = tuple(layout.wrap_dim(d, nd) for d in given) if len(given) == nd else given
    if sorted(ds) != list(range(nd)):
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{nd} is not equal to len(dims) = {len(ds)}"
            if len(ds) != nd
            else "permute(): duplicate dims are not allowed."
        )
    shape, st = t._data.shape, t._stride()
    saved = {"dims": tuple(as_saved(d) for d in given)}
    return tuple(shape[d] for d in ds), tuple(st[d] for d in ds), saved, ds


def transpose_geometry(
    t: Tensor, dim0: int, dim1: int
) -> tuple[tuple[int, ...], tuple[int, ...], dict[str, Any], tuple[int, int]]:
    """``t.transpose(dim0, dim1)``: two sizes and strides swapped; the two dims wrapped."""
    nd = t._data.ndim
    a, b = layout.wrap_dim(dim0, nd), layout.wrap_dim(dim1, nd)
    shape, st = list(t._data.shape), list(t._stride())
    if nd:  # a 0-d tensor has one implicit dim: swapping it with itself changes nothing
        shape[a], shape[b] = shape[b], shape[a]
        st[a], st[b] = st[b], st[a]
    return tuple(shape), tuple(st), {"dim0": as_saved(dim0), "dim1": as_saved(dim1)}, (a, b)


def expand_geometry(
    t: Tensor, *sizes: Any
) -> tuple[tuple[int, ...], tuple[int, ...], dict[str, Any]]:
    """``t.expand(*sizes)``: new and size-1 dims of stride 0 (torch's errors on misuse)."""
    new = shape_arg(sizes)
    if not t._data.ndim and all(s >= 0 for s in new):  # a 0-d tensor (a loss's gradient)
        return new, (0,) * len(new), {"self_sym_sizes": ()}
    st = view_shapes.expand_strides(t._data.shape, t._stride(), new, t.dtype.error_name)
    lead = len(new) - t._data.ndim
    shape = tuple(t._data.shape[i - lead] if (s == -1) else s for i, s in enumerate(new))
    return shape, st, {"self_sym_sizes": tuple(t._data.shape)}


def unsqueeze_geometry(
    t: Tensor, dim: int
) -> tuple[tuple[int, ...], tuple[int, ...], dict[str, Any], bool]:
    """``t.unsqueeze(dim)``: a size-1 dim inserted, and whether ``reshape`` makes the view."""
    nd = t._data.ndim
    d = layout.wrap_dim(dim, nd + 1)
    shape, st = list(t._data.shape), list(t._stride())
    new_stride = 1 if d >= nd else shape[d] * st[d]
    shape.insert(d, 1)
    st.insert(d, new_stride)
    new, strides = tuple(shape), tuple(st)
    return new, strides, {"dim": as_saved(dim)}, by_reshape(t._data, new, strides)


def squeeze_geometry(
    t: Tensor, *given: Any
) -> tuple[tuple[int, ...], tuple[int, ...], dict[str, Any], str, tuple[int, ...]]:
    """``t.squeeze(*given)``: size-1 dims dropped; the node's name and the dims dropped."""
    dim = given[0] if given else None
    nd = t._data.ndim
    shape, st = t._data.shape, t._stride()
    if dim is None:
        keep = [i for i in range(nd) if shape[i] != 1]
        name, ctx = "SqueezeBackward0", {"self_sym_sizes": tuple(shape)}
    else:
        dims = dim if isinstance(dim, tuple | list) else (dim,)
        wrapped = [layout.wrap_dim(d, nd) for d in dims]
        for d in wrapped:
            if wrapped.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        ds = set(wrapped) if nd else set()
        keep = [i for i in range(nd) if not (i in ds and shape[i] == 1)]
        several = isinstance(dim, tuple | list)
        name = "SqueezeBackward2" if several else "SqueezeBackward1"
        saved: Any = tuple(as_saved(d) for d in dims) if several else as_saved(dim)
        ctx = {"dim": saved, "self_sym_sizes": tuple(shape)}
    dropped = tuple(i for i in range(nd) if i not in keep)  # all of size 1
    return tuple(shape[i] for i in keep), tuple(st[i] for i in keep), ctx, name, dropped


def one_dim(t: Tensor, dim: int, op: str) -> tuple[int, int]:
    """``dim`` wrapped and its size, for ``op`` on one dim; a 0-dim tensor is torch's
    IndexError."""
    nd = t._data.ndim
    if nd == 0:
        raise IndexError(f"{op}() cannot be applied to a 0-dim tensor.")
    d = layout.wrap_dim(dim, nd)
    return d, t._data.shape[d]


Part = tuple[tuple[int, ...], tuple[int, ...], int, dict[str, Any], tuple[Any, ...] | None]
"""The geometry of a view of part of a tensor: its sizes, strides, offset from the tensor's,
saved values, and the numpy index that makes it of the tensor's array (None: make it from the
storage, when the part is empty)."""


def slice_geometry(t: Tensor, dim: int, start: Any, end: Any, step: Any) -> Part:
    """``start:end:step`` of ``dim`` (torch's errors for a 0-d tensor and a step <= 0)."""
    d, size = one_dim(t, dim, "slice")
    step = 1 if step is None else step
    if step <= 0:
        raise ValueError("step must be greater than zero")
    lo, hi, _ = slice(start, end, step).indices(size)
    hi = max(hi, lo)
    n = (hi - lo + step - 1) // step
    shape, st = list(t._data.shape), list(t._stride())
    offset = lo * st[d]
    shape[d] = n
    st[d] = st[d] * step
    ctx = {
        "dim": as_saved(dim),
        "start": as_saved(start),
        "end": as_saved(end),
        "step": step,
        "self_sym_sizes": tuple(t._data.shape),
    }
    key = (slice(None),) * d + (slice(lo, hi, step),) if n else None
    return tuple(shape), tuple(st), offset, ctx, key


def select_geometry(t: Tensor, dim: int, index: int, from_indexing: int = 0) -> Part:
    """Index ``index`` of ``dim``, removed (torch's errors; ``from_indexing``: ``t[i]``'s)."""
    d, size = one_dim(t, dim, "select")
    i = int(index)
    if i < -size or i >= size:
        if from_indexing:
            raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
        raise IndexError(
            f"select(): index {i} out of range for tensor of size {list(t._data.shape)} at "
            f"dimension {d}"
        )
    i = i + size if i < 0 else i
    shape, st = list(t._data.shape), list(t._stride())
    offset = i * st[d]
    del shape[d], st[d]
    ctx = {"dim": as_saved(dim), "index": as_saved(index), "self_sym_sizes": tuple(t._data.shape)}
    # the Ellipsis makes numpy return a 0-d array, not a scalar, for the last dim's elements
    return tuple(shape), tuple(st), offset, ctx, (slice(None),) * d + (i, Ellipsis)
