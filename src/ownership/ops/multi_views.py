"""Multi-output views: ``unbind``, ``split``, ``chunk``, several views made by one node.

All the pieces share the input's storage and version counter, and one node (``UnbindBackward0``,
``SplitBackward0``, ``SplitWithSizesBackward0``) whose outputs they are. Made with grad mode on,
they refuse in-place writes (torch's rule for multi-output views). ``unsafe_split`` and
``unsafe_chunk`` make the same pieces, which autograd does not see as views
(:func:`not_views`): their node's name starts with ``Unsafe``, and they may be written in place.

>>> import ownership
>>> a, b = ownership.arange(4.0, requires_grad=True).split(2)
>>> a.grad_fn is b.grad_fn, a.grad_fn.name(), (a._output_nr, b._output_nr)
(True, 'SplitBackward0', (0, 1))
"""

from __future__ import annotations

from typing import Any

from ownership.core import grad_mode, inference_mode, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.autograd.view_history import CreationMeta, propagate_creation_meta
from ownership.core.op_registry import OPS
from ownership.core.storage import VersionCounter
from ownership.core.tensor import Tensor
from ownership.ops import checks
from ownership.ops.argument_values import as_saved
from ownership.ops.common import needs_grad, run_op, touch_history


def not_views(views: tuple[Tensor, ...]) -> tuple[Tensor, ...]:
    """torch's ``unsafe_`` pieces: the memory of ``views``, each tracked by a version counter of
    its own (writes through one move neither the input's version nor the others'), and no
    ``_base``, so autograd lets them be written in place and never rebases their history. As
    torch: an inference tensor's pieces keep its counter (it has no version to give), and pieces
    made in inference mode stay views (autograd is not running), with counters of their own."""
    if not views or views[0]._version_counter.inference:
        return views
    if inference_mode.is_inference_mode_enabled():
        for v in views:
            v._lazy_counter = VersionCounter()
            v._view_version = 0
        return views
    return tuple(v._alias(VersionCounter()) for v in views)


def _multi(
    t: Tensor,
    pieces: list[tuple[tuple[int, ...], tuple[int, ...], int]],
    name: str,
    backward: Any,
    ctx: dict[str, Any],
    unsafe: bool = False,
) -> tuple[Tensor, ...]:
    """The views ``pieces`` of ``t`` (shape, strides, offset each), the outputs of one node
    ``name`` when ``t`` needs grad: :func:`run_op` attaches it to the first, and its ``after``
    makes the others its outputs 1, 2, ..."""

    def views() -> tuple[Tensor, ...]:
        outs = tuple(t._view(*p) for p in pieces)
        if unsafe:
            return not_views(outs)
        # views of an inference tensor are untracked inference leaves; under no_grad:
        # NO_GRAD_MODE views
        if not t._is_inference() and grad_mode.is_grad_enabled():
            for o in outs:
                o._creation_meta = propagate_creation_meta(
                    o._creation_meta, CreationMeta.MULTI_OUTPUT_NODE
                )
        return outs

    if not pieces or not needs_grad(t):
        return views()
    made: list[tuple[Tensor, ...]] = []

    def kernel() -> Tensor:
        made.append(views())
        return made[0][0]

    def after(node: OpNode, first: Tensor) -> None:
        outs = made[0]
        node.num_outputs = len(outs)
        for i, o in enumerate(outs[1:], 1):
            o._grad_fn = node
            o._requires_grad = True
            o._output_nr = i

    name = "Unsafe" + name if unsafe else name
    run_op((t,), True, kernel, name, backward, ctx, after=after)
    return made[0]


def _fill_none(grads: tuple[Any, ...], shapes: list[tuple[int, ...]], like: Any) -> list[Any]:
    return [
        g if g is not None else OPS["zeros"](shp, dtype=like.dtype)
        for g, shp in zip(grads, shapes, strict=True)
    ]


def unbind(t: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """All slices along ``dim`` (``UnbindBackward0``, multi-output views)."""
    touch_history(t)
    nd = t._data.ndim
    d = layout.wrap_dim(dim, nd)
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    shape, st = list(t._data.shape), list(t._stride())
    n = shape[d]
    pshape = tuple(s for i, s in enumerate(shape) if i != d)
    pst = tuple(s for i, s in enumerate(st) if i != d)
    pieces = [(pshape, pst, t._offset + i * st[d]) for i in range(n)]

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        like = next(x for x in g if x is not None)
        return (OPS["stack"](_fill_none(g, [pshape] * n, like), d),)

    return _multi(t, pieces, "UnbindBackward0", bw, {"dim": as_saved(dim)})


def split(t: Tensor, split_size: Any, dim: int = 0, unsafe: bool = False) -> tuple[Tensor, ...]:
    """Pieces along ``dim`` (``SplitBackward0`` or ``SplitWithSizesBackward0``; ``unsafe``:
    ``unsafe_split``'s pieces, :func:`not_views`)."""
    touch_history(t)
    nd = t._data.ndim
    if nd == 0:
        checks.split_sizes(t, split_size, 0)
    d = layout.wrap_dim(dim, nd)
    checks.split_sizes(t, split_size, d)
    size = t._data.shape[d]
    if isinstance(split_size, list | tuple):
        sizes = [int(s) for s in split_size]
        if sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                f"at dimension {d}), but got split_sizes={sizes}"
            )
        name, ctx = "SplitWithSizesBackward0", {"dim": as_saved(dim), "split_sizes": tuple(sizes)}
    else:
        k = int(split_size)
        sizes = [min(k, size - i) for i in range(0, size, k)] if size and k else [0]
        name, ctx = "SplitBackward0", {"dim": as_saved(dim), "split_size": k}
    ctx["self_sym_sizes"] = tuple(t._data.shape)
    shape, st = list(t._data.shape), list(t._stride())
    pieces, shapes, start = [], [], 0
    for n in sizes:
        pshape = list(shape)
        pshape[d] = n
        pieces.append((tuple(pshape), tuple(st), t._offset + start * st[d]))
        shapes.append(tuple(pshape))
        start += n

    def bw(node: OpNode, s: Saved, g: Grads) -> Any:
        like = next(x for x in g if x is not None)
        return (OPS["cat"](_fill_none(g, shapes, like), d),)

    return _multi(t, pieces, name, bw, ctx, unsafe)


def chunk(t: Tensor, chunks: int, dim: int = 0, unsafe: bool = False) -> tuple[Tensor, ...]:
    """``chunks`` pieces of size ceil(n / chunks) (``SplitBackward0``; ``unsafe``: those of
    ``unsafe_chunk``, :func:`not_views`)."""
    checks.chunks(t, chunks)  # torch's chunk checks its arguments, then splits (the edge read)
    size = t._data.shape[layout.wrap_dim(dim, t._data.ndim)]
    touch_history(t)
    if size == 0:  # torch: ``chunks`` empty pieces
        return split(t, [0] * chunks, dim, unsafe)
    k = max(1, -(-size // chunks))
    return split(t, k, dim, unsafe)
