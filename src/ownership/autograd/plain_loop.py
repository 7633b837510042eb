"""The backward loop of a plain graph, beside the engine's general loop.

A plain graph is what ``loss.backward()`` of a training step walks: built-in ops' nodes and
leaves' accumulators, no hook anywhere (a tensor's, a node's, a leaf's, a post-accumulate one),
no retained gradient, no accumulation observer, anomaly mode off, nothing captured for the
caller, every leaf's ``.grad`` wanted. :func:`run_plain` runs such a graph as the general loop
(``ownership.autograd.engine._run``) would, asking at each node only whether it is still
plain; at the first node that is not (the test the general loop makes of it) it hands that node,
the ready queue, the held nodes, the dependency counts and the input buffers over to the general
loop, which goes on exactly where this one stopped. What both loops do with a node is the same
engine rule called from one place: the ready queue's order (``ready_in_order``, ``ready_one``),
the buffers' sums (``InputBuffers.add``), a leaf's accumulation (``accumulate``), an op node's
freeing (``OpNode.release``, inlined as in the general loop). ``test_plain_loop`` runs graphs
through both loops and checks that they agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ownership import grad_mode, observers
from ownership.autograd import anomaly_mode, hooks
from ownership.autograd.accumulate_grad import accumulate
from ownership.autograd.input_buffers import InputBuffers
from ownership.autograd.node import AccumulateGrad, Node, OpNode
from ownership.autograd.ready_queue import ReadyQueue, ready_in_order, ready_one

__all__ = ["run_plain"]

NO_GRADIENT = (None,)
"""An accumulator's gradients when none arrived."""

LEAF_MOVED = "leaf variable has been moved into the graph interior"
"""torch's error when a leaf that receives a gradient has got a history since the graph was
built (an in-place op on it under ``no_grad`` ... then ``requires_grad``)."""


def run_plain(
    root: Node,
    deps: dict[Node, int],
    buffers: InputBuffers,
    retain_graph: bool,
    general: Callable[..., None],
) -> None:
    """Run the graph from ``root`` (its gradient in ``buffers``, a tensor) as
    ``general(queue, deps, buffers, {}, [], None, retain_graph, held)`` runs it (the general
    loop of ``backward()``: no captures, every leaf wanted), while the nodes met are plain;
    from the first one that is not, ``general`` runs the rest.

    Every gradient list in ``buffers`` here holds at least one tensor (the root's is given, and
    this loop adds none but tensors), so a node with a list is called, as the general loop
    calls a node when some gradient arrived; a node without one gets none for its inputs."""
    pending = buffers.grads
    queue = ReadyQueue()
    ready = queue.heap  # the queue's entries: empty when nothing is ready
    held = [root]  # the nodes to run next, last first (see the general loop)
    anomaly = anomaly_mode._state
    grad_state = grad_mode._state
    leaf_hooks = hooks.LEAF_HOOKS
    post_hooks = hooks.POST_ACCUMULATE_HOOKS
    accumulations = observers.ACCUMULATIONS
    g: Any = None
    while held or ready:
        node: Any = held.pop() if held else queue.pop()
        if node._pre_hooks is not None or node._retained is not None:
            break
        cls = type(node)
        if cls is AccumulateGrad:
            if leaf_hooks or post_hooks or accumulations:
                break
            g = pending.pop(node, NO_GRADIENT)[0]  # (the list goes at once: ``g`` holds it)
            if g is not None:
                var = node.variable
                # grad_fn's slot, read through the property only for a view (which refreshes)
                if (var._history if var._base is None else var._node()) is not None:
                    raise RuntimeError(LEAF_MOVED)
                accumulate(var, g, grad_state.enabled, 2)  # held by ``g`` and the callee
                g = None
            continue
        if (cls is not OpNode and not isinstance(node, OpNode)) or anomaly.enabled:
            break
        nexts = node._edges
        grads = pending.pop(node, None)
        if grads is None:  # no gradient arrived: the node is not called, its inputs get none
            outs: list[Any] = [None] * len(nexts)
        else:  # ``node.apply``, inlined (shown or not)
            outs = list(node._backward(node, node.unpack_all(), tuple(grads)))
            grads = None  # torch drops a node's input gradients before passing its outputs on
        if not retain_graph and node._saved is not None:  # (nothing saved: nothing to free)
            if node._state_keys:
                node.release()
            else:  # ``OpNode.release`` of a node without state values, inlined
                node._freed_keys = tuple(node._saved)
                node._saved = None
        dts = node.input_dtypes
        if dts is None:
            dts = (None,) * len(nexts)
        # the nodes this node makes ready: the first, then all of them
        first: Node | None = None
        batch: list[Node] | None = None
        for i, (nxt, nr) in enumerate(nexts):
            if nxt is None:
                continue  # a gradient for no edge is dropped (unchecked: nobody sees it)
            try:
                g = outs[i]
            except IndexError:  # fewer gradients than edges: none for this one
                g = None
            if g is not None:
                outs[i] = None  # moved into the buffer, as torch moves it
                try:  # torch's validate_outputs: a gradient takes its input's dtype
                    dt = dts[i]
                except IndexError:
                    dt = None
                if g.dtype is not dt and dt is not None:
                    g = g.to(dt)
                if nxt.num_outputs == 1 and nxt not in pending:
                    pending[nxt] = [g]  # the first gradient for nxt: buffers.add, inlined
                else:
                    buffers.add(nxt, nr, g)
            # (every node reached is in ``deps``: nothing is pruned here)
            d = deps[nxt]
            if d == 1:  # the last edge to nxt: ready (and its count is read no more)
                if first is None:
                    first = nxt
                elif batch is None:
                    batch = [first, nxt]
                else:
                    batch.append(nxt)
            else:
                deps[nxt] = d - 1
        g = None
        del outs  # (it holds the gradients of edges to no node: dropped)
        if batch is not None:
            if ready:  # pushed in edge order, as torch pushes them
                for nxt in batch:
                    queue.push(nxt)
            else:
                ready_in_order(batch, queue, held)
        elif first is not None:
            if ready:
                ready_one(first, queue, held)
            else:  # the one ready node: the queue would pop it next
                held.append(first)
    else:
        return
    held.append(node)  # the node that is not plain runs next, in the general loop
    general(queue, deps, buffers, {}, [], None, retain_graph, held)
