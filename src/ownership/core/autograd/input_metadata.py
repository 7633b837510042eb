"""torch's ``validate_outputs``: every gradient passed along an edge checked against the shape
its node recorded for that input (only where ``.data`` or a resize changed a tensor's shape since:
:func:`note_shape_change`; else nothing is looked up), then cast to its input's dtype.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from ownership.core.autograd.node import Node

RECORDED: weakref.WeakKeyDictionary[Node, dict[int, tuple[int, ...]]] = weakref.WeakKeyDictionary()
"""The shapes recorded for ``(node, output_nr)`` that differ from their tensor's now."""

_any_recorded = False
"""Whether any shape was ever recorded."""


def note_shape_change(t: Any, shape: tuple[int, ...]) -> None:
    """``t``'s shape was ``shape`` before ``.data`` or a resize changed it: its ``grad_fn``, or
    its live accumulator, keeps the first one recorded."""
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
    """``grad``, passed to input ``nr`` of ``node`` (``index``-th of the roots or of ``by``'s
    outputs), checked against the shape recorded for it, else ``shape`` (None: no check)."""
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
    """torch's ``validate_outputs`` of the roots' gradients, in place (recorded shapes only)."""
    if RECORDED:
        for i, ((node, nr), g) in enumerate(zip(edges, grads, strict=True)):
            if node is not None and g is not None:
                grads[i] = _shape_checked(node, nr, g, i, None, None)


def validate_outputs(
    node: Node, outs: list[Any], shapes: Sequence[tuple[int, ...]] | None = None
) -> None:
    """torch's ``validate_outputs`` of what ``node`` returned, in place: each gradient checked
    against the recorded shape (or ``shapes``, a custom Function's inputs'), then cast to its
    input's dtype."""
    if shapes is not None or (_any_recorded and RECORDED):
        for i, (nxt, nr) in enumerate(node._edges[: len(outs)]):
            g = outs[i]
            if nxt is not None and g is not None:
                outs[i] = _shape_checked(nxt, nr, g, i, node, None if shapes is None else shapes[i])
    dts = node.input_dtypes or ()
    for i, (g, dt, (nxt, _)) in enumerate(zip(outs, dts, node._edges, strict=False)):
        if g is not None and dt is not None and g.dtype is not dt and nxt is not None:
            outs[i] = g.to(dt)
