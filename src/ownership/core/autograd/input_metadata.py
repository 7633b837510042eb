"""The shape autograd recorded for a node's output (an accumulator's input), where ``.data``
changed the tensor's since.

torch's nodes keep each input's metadata from when they were made: a ``grad_fn`` its output's
shape, a leaf's ``AccumulateGrad`` the leaf's. ``x.data = y`` of another shape changes the tensor,
not that metadata, and the engine checks each gradient it passes along an edge against it
(``validate_outputs``): ``x.backward()`` then raises "invalid gradient at index 0 - got [] but
expected shape compatible with [4]" (a gradient that the recorded shape expands to is summed down
to it instead). The engine checks its roots' gradients here (:func:`checked_root`); only a
``.data`` assignment records a shape (:func:`note_data_shape`), so for every other tensor nothing
is looked up but an empty mapping.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ownership.core import layout
from ownership.core.autograd.node import Node

RECORDED: weakref.WeakKeyDictionary[Node, dict[int, tuple[int, ...]]] = weakref.WeakKeyDictionary()
"""The shapes recorded for ``(node, output_nr)`` that differ from their tensor's now."""


def note_data_shape(t: Any, shape: tuple[int, ...]) -> None:
    """``t``'s shape was ``shape`` before a ``.data`` assignment: its ``grad_fn``, or its live
    accumulator, keeps that shape (the first one recorded: the node's metadata is its own)."""
    node: Node | None = t._history
    nr = t._output_nr
    if node is None:
        node = t._acc()  # None if none was made yet: one made later records the new shape
        nr = 0
    if node is not None:
        RECORDED.setdefault(node, {}).setdefault(nr, shape)


def checked_root(node: Node, nr: int, grad: Any, index: int) -> Any:
    """``grad``, the gradient of root ``index`` passed to ``(node, nr)``, as torch's
    ``validate_outputs`` leaves it: summed to the recorded shape it expands from, else refused."""
    shape = RECORDED.get(node, {}).get(nr)
    if shape is None or grad is None or tuple(grad._data.shape) == shape:
        return grad
    got = tuple(grad._data.shape)
    if len(shape) <= len(got) and all(
        s == g or s == 1 for s, g in zip(shape, got[len(got) - len(shape) :], strict=True)
    ):
        axes = layout.unbroadcast_axes(shape, got)
        summed = np.sum(grad._data, axis=axes, keepdims=True).reshape(shape)
        return grad._wrap(np.asarray(summed, dtype=grad._data.dtype), grad.dtype)
    raise RuntimeError(
        f"invalid gradient at index {index} - got {list(got)} but expected shape compatible "
        f"with {list(shape)}"
    )
