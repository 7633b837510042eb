"""The backward engine's ready queue: the nodes ready to run, in the order torch runs them.

torch keeps them in a ``std::priority_queue`` (``ReadyQueue`` in
``torch/csrc/autograd/engine.cpp``) that pops the largest sequence number first, the most
recently created node. An ``AccumulateGrad`` has the largest number there is, so a leaf's
gradient is accumulated as soon as it is ready, before any other ready node. Accumulators
ready together come out in the order C++'s heap algorithm leaves them, which is not the order
they went in (four leaves of one ``cat`` accumulate as 0, 2, 1, 3): :class:`ReadyQueue` runs
that algorithm (libstdc++'s ``push_heap`` and ``pop_heap``, step for step) so that the order
is torch's. Where the order of the nodes one node makes ready is known without it, and the
queue is left as torch's, the engine runs them without the queue (:func:`ready_in_order`, and
:func:`ready_one` for one node made ready above every waiting one).
"""

from __future__ import annotations

from typing import Any

from ownership.core.autograd.node import AccumulateGrad, Node

__all__ = ["ReadyQueue", "ready_in_order", "ready_one"]

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


def ready_in_order(batch: list[Node], queue: ReadyQueue, held: list[Node]) -> None:
    """Make ready the nodes ``batch`` (in edge order) that one node made ready while nothing
    else was, as torch pushes them all into its queue then pops, except where the order of the
    first pops is known and the queue is left as torch's: those nodes go to ``held`` (last
    first) instead of through the queue.

    - An accumulator comes out first (the highest rank; of two, the first pushed) and runs
      without making anything ready, so nothing is pushed before the next pop.
    - Then, of up to three ops (distinct ranks), the latest; the others are pushed in edge
      order: a heap of one or two distinct ranks has one layout, so the queue is torch's.
    """
    leaves = [n for n in batch if type(n) is AccumulateGrad]
    if len(leaves) == 2 and len(batch) == 2:
        held += (leaves[1], leaves[0])
        return
    if len(leaves) <= 1 and len(batch) - len(leaves) <= 3:
        ops = [n for n in batch if type(n) is not AccumulateGrad]
        if ops:
            top = max(ops, key=_rank)
            for node in ops:
                if node is not top:
                    queue.push(node)
            held.append(top)
        held += leaves
        return
    for node in batch:
        queue.push(node)


def ready_one(node: Node, queue: ReadyQueue, held: list[Node]) -> None:
    """Make ready the one node that a node made ready while others wait in ``queue``: held (run
    next) when it ranks strictly above every waiting node, as torch would push it and pop it at
    once (a push of a strictly highest entry then a pop leaves libstdc++'s heap as it was), else
    pushed."""
    rank = _ACCUMULATOR if type(node) is AccumulateGrad else node._seq
    if rank > queue.heap[0][0]:
        held.append(node)
    else:
        queue.push(node)


def _rank(node: Node) -> int:
    """An op's rank in the ready queue: its sequence number."""
    return node._seq
