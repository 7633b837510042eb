"""torch's ``validate_outputs``: every gradient passed along an edge checked against the
metadata its node recorded for that input, the engine's one rule for it.

torch's nodes keep each input's metadata from when they were made: a ``grad_fn`` its output's
shape, a leaf's ``AccumulateGrad`` the leaf's shape when the accumulator was made. ``x.data = y``
of another shape, or a resize in inference mode, changes the tensor, not that metadata, and the
engine checks each gradient it passes along an edge (a root's, and each node's result) against
it: a gradient of the recorded shape passes, one the recorded shape expands to is summed down to
it (``at::sum_to``), any other is refused, a root's with "invalid gradient at index 0 - got [] but
expected shape compatible with [4]", a node's with "Function MulBackward0 returned an invalid
gradient at index 0 - ..."; then a gradient takes the dtype its input had (``input_dtypes``).

The engine records no shape for a tensor whose shape never changed behind autograd's back (a
node's output and a leaf always have the shape of their gradients): only such a change records
one (:func:`note_shape_change`), so for every other node nothing is looked up but an empty
mapping. A custom Function's node, whose backward may return any shape, passes its inputs'
shapes (:func:`validate_outputs`).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from ownership.core.autograd.node import Node

RECORDED: weakref.WeakKeyDictionary[Node, dict[int, tuple[int, ...]]] = weakref.WeakKeyDictionary()
"""The shapes recorded for ``(node, output_nr)`` that differ from their tensor's now."""

_any_recorded = False
"""Whether any shape was ever recorded: :func:`validate_outputs` asks this, a global's read,
for each node, where the truth of ``RECORDED`` is a call to its ``__len__``."""


def note_shape_change(t: Any, shape: tuple[int, ...]) -> None:
    """``t``'s shape was ``shape`` before ``.data`` or a resize changed it: its ``grad_fn``, or
    its live accumulator, keeps that shape (the first one recorded: the node's metadata is its
    own)."""
    node: Node | None = t._history
    nr = t._output_nr
    if node is None:
        node = t._acc()  # None if none was made yet: one made later records the new shape
        nr = 0
    if node is not None:
        global _any_recorded
        _any_recorded = True
        RECORDED.setdefault(node, {}).setdefault(nr, shape)


def _shape_checked(
    node: Node, nr: int, grad: Any, index: int, by: Node | None, shape: tuple[int, ...] | None
) -> Any:
    """``grad``, passed to input ``nr`` of ``node``, as torch's ``validate_outputs`` leaves it
    (``index``: its place among the roots, or among the outputs of the node ``by``), checked
    against the shape recorded for it, else ``shape`` (None: it has the shape expected)."""
    if RECORDED:
        shape = RECORDED.get(node, {}).get(nr, shape)
    got = tuple(grad._data.shape)
    if shape is None or got == shape:
        return grad
    if len(shape) <= len(got) and all(
        s == g or s == 1 for s, g in zip(shape, got[len(got) - len(shape) :], strict=True)
    ):
        if not shape:  # at::sum_to's steps: a 0-d shape's is the whole sum
            return grad.sum()
        lead = len(got) - len(shape)
        dims = [*range(lead)]
        dims += [lead + i for i, s in enumerate(shape) if s == 1 and got[lead + i] != 1]
        if dims:
            grad = grad.sum(dims, keepdim=True)
        return grad.view(shape) if lead else grad
    message = (
        f"invalid gradient at index {index} - got {list(got)} but expected shape compatible "
        f"with {list(shape)}"
    )
    raise RuntimeError(message if by is None else f"Function {by.name()} returned an {message}")


def validate_roots(edges: Sequence[tuple[Node | None, int]], grads: list[Any]) -> None:
    """torch's ``validate_outputs`` of the roots' gradients, in place (only shapes a change
    recorded are checked here: the caller checked the rest against the roots)."""
    if RECORDED:
        for i, ((node, nr), g) in enumerate(zip(edges, grads, strict=True)):
            if node is not None and g is not None:
                grads[i] = _shape_checked(node, nr, g, i, None, None)


def validate_outputs(
    node: Node, outs: list[Any], shapes: Sequence[tuple[int, ...]] | None = None
) -> None:
    """torch's ``validate_outputs`` of what ``node`` returned, in place: for each edge to a
    node, the gradient checked against the recorded shape, then cast to its input's dtype.
    The engine calls it where there is something to check (a recorded shape, or
    ``node.input_dtypes``); a node whose backward may return any shape (a custom Function's)
    calls it with ``shapes``, its inputs' shapes when it was made (what their nodes recorded,
    unless a change recorded an older one)."""
    if shapes is not None or (_any_recorded and RECORDED):
        for i, (nxt, nr) in enumerate(node._edges[: len(outs)]):
            g = outs[i]
            if nxt is not None and g is not None:
                outs[i] = _shape_checked(nxt, nr, g, i, node, None if shapes is None else shapes[i])
    dts = node.input_dtypes
    if dts is None:
        return
    # most often every gradient has its input's dtype already: one look (lengths may differ)
    for g, dt in zip(outs, dts, strict=False):
        if g is not None and g.dtype is not dt and dt is not None:
            break
    else:
        return
    for i, (g, dt, (nxt, _)) in enumerate(zip(outs, dts, node._edges, strict=False)):
        if g is not None and dt is not None and g.dtype is not dt and nxt is not None:
            outs[i] = g.to(dt)
