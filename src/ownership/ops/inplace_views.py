"""In-place view ops: ``t_``, ``transpose_``, ``swapdims_``/``swapaxes_``, ``squeeze_``,
``unsqueeze_``, ``as_strided_``. They change the tensor's *geometry* (shape, strides, offset)
in place, never its values, yet count as in-place ops, as in torch:

- the shared version counter goes up by one (so a saved alias is stale afterwards);
- when recorded, torch's in-place checks run first (:func:`ownership.core.inplace_rules.check_inplace`) (a leaf that requires grad, a view of one,
  a view made under no_grad or inference mode, an output of a multi-view op are refused with
  torch's messages), and the tensor's new ``grad_fn`` is the ``...Backward1`` node of the op
  (``TBackward1``, ``TransposeBackward1``, ``SqueezeBackward3``...), its input the old history.

>>> import ownership
>>> x = ownership.ones(2, 3, requires_grad=True) * 2
>>> x.t_() is x, x.shape, x._version, x.grad_fn.name()
(True, torch.Size([3, 2]), 1, 'TBackward1')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ownership.core import layout, observers
from ownership.core.autograd.node import OpNode, gradient_edge
from ownership.core.autograd.view_history import AsStridedBackward0
from ownership.core.grad_mode import no_grad
from ownership.core.inplace_rules import check_inplace
from ownership.core.op_registry import OPS
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import as_saved
from ownership.ops.common import needs_grad
from ownership.ops.leftover_size import shape_changed
from ownership.ops.views import unsqueeze_to

__all__ = ["as_strided_", "squeeze_", "t_", "transpose_", "unsqueeze_"]


class AsStridedBackward1(AsStridedBackward0):
    """The node of ``as_strided_``: the gradient scattered back through the old geometry."""

    __slots__ = ()


def _rebuild(
    t: Tensor, shape: tuple[int, ...], strides: tuple[int, ...], offset: int, node: Any
) -> Tensor:
    """Give ``t`` its new geometry, bump the version, and (if recorded) its new history."""
    edge = gradient_edge(t) if node is not None else (None, 0)
    if observers.BEFORE_WRITES:  # e.g. allow_mutation_on_saved_tensors: saved aliases cloned
        observers.before_write(t)
    old_shape = t._data.shape
    t._data = layout.strided(t._storage.buffer, shape, strides, offset)
    shape_changed(t, old_shape)
    t._offset = offset
    t._version_counter.bump()
    if t._base is not None:  # the view's own new history, not a window on its base
        t._view_version = t._version_counter.value
    if node is not None:
        made = node(edge)
        made.input_dtypes = (t.dtype,)
        t._set_grad_fn(made)
    return t


def _like(
    name: str, ctx: dict[str, Any], backward: Callable[[Any], Any]
) -> Callable[[Any], OpNode]:
    return lambda edge: OpNode(name, (edge,), lambda node, s, g: (backward(g[0]),), ctx)


def _apply(
    t: Tensor, view: Callable[[], Tensor], name: str, ctx: dict[str, Any], bw: Any
) -> Tensor:
    recorded = needs_grad(t)
    if recorded:
        check_inplace(t)
    with no_grad():
        v = view()
    return _rebuild(
        t, tuple(v._data.shape), v._stride(), v._offset, _like(name, ctx, bw) if recorded else None
    )


def t_(t: Tensor) -> Tensor:
    """Transpose in place (``TBackward1``)."""
    return _apply(t, lambda: OPS["t"](t), "TBackward1", {}, lambda g: g.t())


def transpose_(t: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims in place (``TransposeBackward1``)."""
    return _apply(
        t,
        lambda: OPS["transpose"](t, dim0, dim1),
        "TransposeBackward1",
        {"dim0": as_saved(dim0), "dim1": as_saved(dim1)},
        lambda g: g.transpose(dim0, dim1),
    )


def squeeze_(t: Tensor, dim: Any = None) -> Tensor:
    """Drop size-1 dims in place (all: ``SqueezeBackward3``; one: ``SqueezeBackward4``)."""
    shape = tuple(t._data.shape)
    ctx: dict[str, Any] = {"self_sym_sizes": shape}
    if dim is None:
        name = "SqueezeBackward3"
    elif isinstance(dim, tuple | list):
        name, ctx["dim"] = "SqueezeBackward5", tuple(as_saved(d) for d in dim)
    else:
        name, ctx["dim"] = "SqueezeBackward4", as_saved(dim)
    dims = ctx.get("dim")
    return _apply(
        t, lambda: OPS["squeeze"](t, dim), name, ctx, lambda g: unsqueeze_to(g, shape, dims)
    )


def unsqueeze_(t: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim in place (``UnsqueezeBackward1``)."""
    ctx: dict[str, Any] = {}

    def view() -> Tensor:
        ctx["dim"] = as_saved(dim)
        return OPS["unsqueeze"](t, dim)  # type: ignore[no-any-return]

    return _apply(t, view, "UnsqueezeBackward1", ctx, lambda g: g.squeeze(dim))


def as_strided_(t: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """Any geometry over the same storage, in place (``AsStridedBackward1``).

    Refuses, with torch's message, a geometry that reaches past the end of the storage.
    """
    shape, strides = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    offset = t._offset if storage_offset is None else int(storage_offset)
    recorded = needs_grad(t)
    if recorded:
        check_inplace(t)
    storage_size = int(t._storage.buffer.size)
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    if 0 in shape:
        needed = 0
    if needed > storage_size:
        item = t._data.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(shape)}, strides {list(strides)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {needed * item} are out of bounds "
            f"for storage of size {storage_size * item}"
        )
    old = t._geometry()

    def node(edge: Any) -> AsStridedBackward1:
        return AsStridedBackward1(edge, old, (shape, strides, offset))

    return _rebuild(t, shape, strides, offset, node if recorded else None)
