"""The backward engine's input buffers: the gradients waiting for a node."""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership.core import grad_mode, observers
from ownership.core.autograd.accumulate_grad import dense
from ownership.core.autograd.node import Node
from ownership.core.autograd.unseen import memory_unseen
from ownership.core.op_registry import quiet


@quiet
def _sum_into(buf: Any, g: Any) -> None:
    """``buf.add_(g)`` for a buffer nobody else sees, of ``g``'s shape and dtype: numpy's
    in-place add and one bump where that is bit for bit ``add_``'s, else ``add_`` itself."""
    arr = buf._data
    if (
        observers.WRITES
        or grad_mode._state.enabled
        or arr.dtype.kind != "f"
        or arr.dtype != buf.dtype.np
        or not arr.flags.writeable
        or type(g._data) is not np.ndarray
    ):
        buf.add_(g)
        return
    np.add(arr, g._data, out=arr)
    buf._version_counter.bump()


class InputBuffers:
    """Gradients waiting for a node, summed like torch's InputBuffer: in place (a version bump)
    only into a buffer nobody else can see (:mod:`ownership.core.autograd.unseen`)."""

    def __init__(self, inplace: bool) -> None:
        self.inplace = inplace
        self.grads: dict[Node, list[Any]] = {}

    def add(self, node: Node, nr: int, g: Any) -> None:
        buf = self.grads.get(node)
        if buf is None:
            buf = self.grads[node] = [None] * node.num_outputs
        old = buf[nr]
        if old is None:
            buf[nr] = g
        elif (
            self.inplace
            and old is not g
            and old._base is None
            and old._data.shape == g._data.shape
            and old.dtype is g.dtype
            and dense(old)
            and memory_unseen(old, 2)  # held by buf[nr] and by `old`
        ):
            _sum_into(old, g)
        else:
            buf[nr] = old + g

    def pop(self, node: Node) -> list[Any]:
        """The gradients summed for ``node`` (None where nothing arrived)."""
        return self.grads.pop(node, None) or [None] * node.num_outputs
