"""Threads that build graphs over one leaf share its one AccumulateGrad node, as in torch.

torch makes a leaf's ``grad_accumulator()`` under a mutex. Without that, two threads could each
make a node for the same leaf, and ``autograd.grad`` in one thread would look for the node the
other thread made: "appears to not have been used in the graph". The race needs an unlucky
thread switch, so the program runs many rounds with Python's switch interval shortened.
"""

from __future__ import annotations

import sys
import threading

from support.differential import same


def test_grad_in_threads_over_one_leaf_finds_its_node() -> None:
    def program(t):
        found = []
        for _ in range(60):
            x = t.ones(5, 5, requires_grad=True)

            def grad_of_leaf(x):
                y = (x + 3) * (x + 4) * 0.5
                found.append(bool((t.autograd.grad(y.sum(), x)[0] == x + 3.5).all()))

            threads = [threading.Thread(target=grad_of_leaf, args=(x,)) for _ in range(8)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        return all(found) and len(found) == 480

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        assert same(program) is True
    finally:
        sys.setswitchinterval(interval)
