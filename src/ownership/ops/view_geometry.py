"""The geometry of ``view`` and ``reshape``: the sizes and strides of a view with the sizes asked
for, remembered by the viewed array's layout and the request (every part of it a pure function of
these), so that a chain of views computes each geometry once; :func:`op_geometry` remembers the
geometry of the other view ops (``t``, ``transpose``, ``expand``, ``select``...) the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ownership import layout
from ownership.layout import Size

if TYPE_CHECKING:
    from ownership._tensor import Tensor

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
"""Geometries already computed, by the viewed array's sizes, byte strides and item size and the
sizes asked for (all Python ints): every part of a geometry is a pure function of these."""
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
    key = (arr.shape, arr.strides, arr.itemsize, shape)
    try:
        found = _VIEW_GEOMETRY.get(key)
        remembered = True
    except TypeError:  # a list in the request: not remembered
        found, remembered = None, False
    if found is not None:
        return found
    new = layout.infer_size(shape_arg(shape), t.numel())
    viewed = t.stride()
    strides = layout.view_strides(arr.shape, viewed, new)
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
"""Geometries of the other view ops, by the op's geometry function, the viewed array's sizes,
byte strides and item size, and the op's arguments (as :data:`_VIEW_GEOMETRY`)."""


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
    key = (compute, arr.shape, arr.strides, arr.itemsize, args)
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
