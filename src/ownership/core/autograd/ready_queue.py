"""The backward engine's ready queue: the nodes ready to run, in the order torch runs them.

torch keeps them in a ``std::priority_queue`` (``ReadyQueue`` in
``torch/csrc/autograd/engine.cpp``) that pops the largest sequence number first, the most
recently created node. An ``AccumulateGrad`` has the largest number there is, so a leaf's
gradient is accumulated as soon as it is ready, before any other ready node. Accumulators
ready together come out in the order C++'s heap algorithm leaves them, which is not the order
they went in (four leaves of one ``cat`` accumulate as 0, 2, 1, 3): :class:`ReadyQueue` runs
that algorithm (libstdc++'s ``push_heap`` and ``pop_heap``, step for step) so that the order
is torch's. Every node made ready goes through it.
"""

from __future__ import annotations

from typing import Any

from ownership.core.autograd.node import AccumulateGrad, Node

__all__ = ["ReadyQueue"]

_ACCUMULATOR = 1 << 64
"""The rank of an ``AccumulateGrad``: above every node's sequence number (torch's is
``UINT64_MAX``)."""


class ReadyQueue:
    """A max-heap of ready nodes by rank (sequence number; accumulators first), laid out and
    reordered exactly as libstdc++'s heap functions do it, so that equal ranks come out in
    torch's order."""

    __slots__ = ("heap",)

    def __init__(self) -> None:
        # the entries (rank, node), empty when nothing is ready: the engine's loop tests this
        # list itself (a list's truth costs no call)
        self.heap: list[tuple[int, Node]] = []

    def __bool__(self) -> bool:
        return bool(self.heap)

    def __len__(self) -> int:
        return len(self.heap)

    def push(self, node: Node) -> None:
        """``std::push_heap``: the new entry rises while its parent ranks strictly lower."""
        rank = _ACCUMULATOR if type(node) is AccumulateGrad else node._seq
        entry = (rank, node)
        self.heap.append(entry)
        _sift_up(self.heap, len(self.heap) - 1, entry)

    def pop(self) -> Any:
        """``std::pop_heap`` then ``pop_back``: the top leaves; the hole it leaves goes down to
        a leaf along the higher-ranked child (the right one on a tie), and the last entry is
        put back in from there."""
        heap = self.heap
        top = heap[0][1]
        last = heap.pop()
        n = len(heap)
        if not n:
            return top
        hole = child = 0
        while child < (n - 1) // 2:
            child = 2 * (child + 1)
            if heap[child][0] < heap[child - 1][0]:
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if n % 2 == 0 and child == (n - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        _sift_up(heap, hole, last)
        return top


def _sift_up(heap: list[tuple[int, Node]], hole: int, entry: tuple[int, Node]) -> None:
    """libstdc++'s ``__push_heap``: put ``entry`` at ``hole``, moving it up past parents of a
    strictly lower rank."""
    rank = entry[0]
    while hole > 0:
        parent = (hole - 1) // 2
        if heap[parent][0] >= rank:
            break
        heap[hole] = heap[parent]
        hole = parent
    heap[hole] = entry
