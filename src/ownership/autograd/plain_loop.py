"""The backward loop of a plain graph, beside the engine's general loop.

A plain graph is what ``loss.backward()`` of a training step walks: built-in ops' nodes and
leaves' accumulators, no hook anywhere (a tensor's, a node's, a leaf's, a post-accumulate one),
no retained gradient, anomaly mode off, nothing captured for the caller, every leaf's ``.grad``
wanted. :func:`run_plain` runs such a graph in the general loop's order
(``ownership.autograd.engine._run``, torch's) without its ready queue, asking at each node
whether it is still plain (the test the general loop makes of it); where one is not, it stops,
and the general loop goes on from there in the state torch's engine has at that point
(:func:`replay`). What both loops do with a node is the same engine rule called from one place:
the buffers' sums (``InputBuffers.add``), a leaf's accumulation (``accumulate``, then
``accumulated`` for its observers), an op node's freeing (``OpNode.release``, inlined as in the
general loop). ``test_plain_loop`` runs graphs through both loops and checks that they agree.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from ownership import grad_mode, observers
from ownership.autograd import anomaly_mode, grad_dtype, hooks
from ownership.autograd.accumulate_grad import LEAF_MOVED, accumulate, accumulated
from ownership.autograd.input_buffers import InputBuffers
from ownership.autograd.node import AccumulateGrad, Node, OpNode
from ownership.autograd.ready_queue import ReadyQueue

__all__ = ["replay", "run_plain"]

_RANK = attrgetter("_seq")
"""An op node's rank in the ready queue: its sequence number."""

NO_GRADIENT = (None,)
"""An accumulator's gradients when none arrived."""


def run_plain(
    root: Node, deps: dict[Node, int], buffers: InputBuffers, retain_graph: bool
) -> tuple[Node, bool] | None:
    """Run the graph from the op node ``root`` (its gradient, a tensor, in ``buffers``; ``deps``
    the count of edges to each node) as the general loop of ``backward()`` runs it, while the
    nodes met are plain. Returns None when it ran the graph to its end, else where it stopped:
    ``(node, False)``, before running ``node``; ``(node, True)``, after running ``node`` and
    passing on its gradients, before running any node it made ready. The rest of the graph is
    then the general loop's (:func:`replay` gives it the state torch's engine has there).

    The order is torch's ready queue's (see :mod:`ownership.autograd.ready_queue`) without the
    queue. The queue pops the highest-ranked ready node; an op's rank is its sequence number,
    and every node that uses an op was made after it (a higher number). So the op with the
    highest number not yet run is ready (the ops that use it have higher numbers still, and
    ran before it) and outranks every other ready op: the ops run from the latest made to the
    earliest. An accumulator outranks every op, so it runs as soon as the node that made it
    ready has run; of two made ready together the first pushed comes out first (the second
    stays a child of the top of libstdc++'s heap). Three or more made ready together come out
    in an order that depends on the queue's layout: there this loop stops.

    Every gradient list in ``buffers`` here holds at least one tensor (the root's is given, and
    this loop adds none but tensors), so a node with a list is called, as the general loop
    calls a node when some gradient arrived; a node without one gets none for its inputs."""
    pending = buffers.grads
    anomaly = anomaly_mode._state
    grad_state = grad_mode._state
    leaf_hooks = hooks.LEAF_HOOKS
    post_hooks = hooks.POST_ACCUMULATE_HOOKS
    accumulations = observers.ACCUMULATIONS
    if leaf_hooks or post_hooks or anomaly.enabled or grad_dtype.LEAVES:
        # (asked again where it matters: a program may change them meanwhile; a leaf's
        # grad_dtype is asked only here: the general loop casts each leaf's gradient)
        return root, False
    g: Any = None
    node: Any
    for node in sorted(deps, key=_RANK, reverse=True):
        cls = type(node)
        if cls is AccumulateGrad:
            continue  # run as soon as it is ready, below
        if (
            node._pre_hooks is not None
            or node._retained is not None
            or (cls is not OpNode and not isinstance(node, OpNode))
            or anomaly.enabled
        ):
            return node, False
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
        # the accumulators this node makes ready: the first, the second, whether more
        leaf = second = None
        more = False
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
            if type(nxt) is AccumulateGrad:  # (an op's count is not needed: see above)
                d = deps[nxt]
                if d == 1:  # the last edge to nxt: ready
                    if leaf is None:
                        leaf = nxt
                    elif second is None:
                        second = nxt
                    else:
                        more = True
                else:
                    deps[nxt] = d - 1
        g = None
        del outs  # (it holds the gradients of edges to no node: dropped)
        if leaf is None:
            continue
        if more or leaf_hooks or post_hooks:
            return node, True
        for acc in (leaf,) if second is None else (leaf, second):
            if acc._pre_hooks is not None:  # (its ``_retained`` is the class's None: read-only)
                return acc, False
            g = pending.pop(acc, NO_GRADIENT)[0]  # (the list goes at once: ``g`` holds it)
            if g is not None:
                var = acc.variable
                # grad_fn's slot, read through the property only for a view (which refreshes)
                if (var._history if var._base is None else var._node()) is not None:
                    raise RuntimeError(LEAF_MOVED)
                accumulate(var, g, grad_state.enabled, 2)  # held by ``g`` and the callee
                g = None
                if accumulations:
                    accumulated(var)
    return None


def replay(root: Node, deps: dict[Node, int], stop: Node, after: bool) -> ReadyQueue:
    """The ready queue of torch's engine where :func:`run_plain` stopped (at ``stop``, before
    it ran or ``after`` it ran), found by running the queue alone from ``root``: every node
    pops, its edges count down ``deps`` (the counts :func:`run_plain` was given, found anew),
    the nodes made ready are pushed in edge order. ``stop`` itself (if not ``after``) is left
    out of the queue: the general loop runs it first, as torch would pop it."""
    queue = ReadyQueue()
    queue.push(root)
    while queue.heap:
        node = queue.pop()
        if node is stop and not after:
            break
        for nxt, _ in node._edges:
            if nxt is not None:
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    queue.push(nxt)
        if node is stop:
            break
    return queue
