"""The backward engine's ready queue: the nodes ready to run, in the order torch runs them.

torch's ``std::priority_queue`` pops the largest sequence number first (an ``AccumulateGrad``'s is
the largest); ties come out as libstdc++'s heap algorithm leaves them (four leaves of one ``cat``
accumulate as 0, 2, 1, 3), so :class:`ReadyQueue` runs that algorithm step for step.
"""

from __future__ import annotations

from typing import Any

from ownership.core.autograd.node import AccumulateGrad, Node

_ACCUMULATOR = 1 << 64
"""The rank of an ``AccumulateGrad``: above every node's sequence number."""


class ReadyQueue:
    """A max-heap of ready nodes by rank, laid out exactly as libstdc++'s heap functions do."""

    __slots__ = ("heap",)

    def __init__(self) -> None:
        self.heap: list[tuple[int, Node]] = []

    def push(self, node: Node) -> None:
        """``std::push_heap``: the new entry rises while its parent ranks strictly lower."""
        rank = _ACCUMULATOR if type(node) is AccumulateGrad else node._seq
        entry = (rank, node)
        self.heap.append(entry)
        _sift_up(self.heap, len(self.heap) - 1, entry)

    def pop(self) -> Any:
        """``std::pop_heap`` then ``pop_back``: the hole goes down along the higher-ranked child
        (the right one on a tie), and the last entry is put back in from there."""
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
    """libstdc++'s ``__push_heap``: ``entry`` moved up from ``hole`` past lower-ranked parents."""
    rank = entry[0]
    while hole > 0:
        parent = (hole - 1) // 2
        if heap[parent][0] >= rank:
            break
        heap[hole] = heap[parent]
        hole = parent
    heap[hole] = entry
