"""The backward engine: one iterative loop over the graph in a deterministic order.

The graph reachable from the roots is discovered with an explicit stack (no recursion, so deep
graphs are fine), dependencies are counted, and nodes run when all their consumers have run,
ties broken like torch's ready queue: the most recently created node first. Gradients reaching
a leaf are summed into its ``.grad`` (which starts as ``None``); saved tensors are freed after a
node runs unless ``retain_graph``.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership import grad_mode
from ownership.autograd import hooks
from ownership.autograd.node import AccumulateGrad, Edge, Node, gradient_edge


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _dense(t: Any) -> bool:
    """Non-overlapping and dense (torch's condition for reusing a gradient buffer in place)."""
    if t._data.size == 0:
        return True
    flags = t._data.flags
    return bool(flags.c_contiguous or flags.f_contiguous)


def _retain(t: Any, grad: Any) -> None:
    """torch's retain_grad hook: the first gradient is cloned, later ones added out of place."""
    if grad.dtype is not t.dtype:
        grad = grad.to(t.dtype)
    old = t._grad
    t._grad = grad.clone() if old is None else old + grad
    if not grad_mode.is_grad_enabled():
        t._grad = t._grad.detach()


def _accumulate(var: Any, grad: Any, create_graph: bool, shared: bool) -> None:
    """AccumulateGrad: the first gradient is stolen when nobody else holds it and it has the
    leaf's layout, else copied into a new tensor with the leaf's layout (torch's
    ``clone_obey_contract``: an empty tensor then ``copy_``, so that copy is at version 1, and in
    ``create_graph`` mode its ``grad_fn`` is ``CopyBackwards``); later gradients are added in
    place (out of place in ``create_graph`` mode)."""
    if grad is None or not var.requires_grad:
        return
    if grad.dtype is not var.dtype:
        grad = grad.to(var.dtype)  # a new tensor: nobody else holds it
        shared = False
    old = var._grad
    if old is None:
        dense_var = _dense(var) or var._data.size == 0
        if not create_graph and not shared and _dense(grad) and 0 not in grad.stride():
            if dense_var and grad._data.strides != var._data.strides:
                # torch's backward formulas (mm's among them) produce the leaf's layout; ours
                # may not, so the values are laid out like the leaf here, as a free relayout
                arr = np.empty_like(var._data)
                arr[...] = grad._data
                grad = grad._wrap(arr, var.dtype)
            var._grad = grad.detach()
            return
        arr = np.empty_like(var._data) if dense_var else np.empty(var._data.shape, var._data.dtype)
        new = grad._wrap(arr, var.dtype)
        new.copy_(grad)
        var._grad = new
    elif create_graph or grad_mode.is_grad_enabled():
        var._grad = old + grad
    else:
        old.add_(grad)


_EMPTY: set[int] = set()


class _Buffers:
    """Gradients waiting for a node, summed like torch's InputBuffer.

    A buffered gradient that nobody else holds is summed into in place (so its version goes up,
    as in torch); one that is shared (a user-given gradient, or the same tensor sent to two
    places) is summed out of place.
    """

    def __init__(self, inplace: bool) -> None:
        self.inplace = inplace
        self.grads: dict[Node, list[Any]] = {}
        self.shared: set[int] = set()

    def add(self, node: Node, nr: int, g: Any, shared: bool) -> None:
        buf = self.grads.get(node)
        if buf is None:
            buf = self.grads[node] = [None] * node.num_outputs
        old = buf[nr]
        if old is None:
            buf[nr] = g
            if shared:
                self.shared.add(id(g))
        elif (
            self.inplace
            and id(old) not in self.shared
            and _dense(old)
            and old._data.shape == g._data.shape
            and old.dtype is g.dtype
            and old._base is None
        ):
            old.add_(g)
        else:
            self.shared.discard(id(old))
            buf[nr] = old + g

    def pop(self, node: Node) -> list[Any]:
        """The gradients summed for ``node`` (None where nothing arrived)."""
        return self.grads.pop(node, None) or [None] * node.num_outputs

    def release(self, g: Any) -> bool:
        """Whether ``g`` was shared; it leaves the buffers either way."""
        if not self.shared or g is None:
            return False
        key = id(g)
        if key in self.shared:
            self.shared.discard(key)
            return True
        return False


def _discover(
    roots: list[Node], need_children: bool
) -> tuple[dict[Node, int], dict[Node, list[Node]]]:
    """Every node reachable from ``roots``, with how many edges point at it (and, if asked, its
    children), found with an explicit stack."""
    deps: dict[Node, int] = {}
    children: dict[Node, list[Node]] = {}
    stack: list[Node] = []
    for node in roots:
        if node not in deps:
            deps[node] = 0
            stack.append(node)
    while stack:
        node = stack.pop()
        kids: list[Node] | None = [] if need_children else None
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            if kids is not None:
                kids.append(nxt)
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                stack.append(nxt)
        if kids is not None:
            children[node] = kids
    return deps, children


def _prune(
    deps: dict[Node, int], children: dict[Node, list[Node]], targets: list[Node]
) -> dict[Node, int]:
    """Keep only the nodes on a path to a target (``autograd.grad`` runs nothing else)."""
    parents: dict[Node, list[Node]] = {n: [] for n in children}
    for n, kids in children.items():
        for c in kids:
            parents[c].append(n)
    keep: set[Node] = {t for t in targets if t in parents}
    todo = list(keep)
    while todo:
        n = todo.pop()
        for p in parents[n]:
            if p not in keep:
                keep.add(p)
                todo.append(p)
    pruned = dict.fromkeys(keep, 0)
    for n in keep:
        for c in children[n]:
            if c in pruned:
                pruned[c] += 1
    return pruned


def run_backward(
    roots: Sequence[Any],
    root_grads: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Any] | None = None,
    accumulate: bool = True,
    user_given: Sequence[bool] | None = None,
) -> list[Any]:
    """Run backward from ``roots`` seeded with ``root_grads``.

    With ``accumulate`` (``.backward``) gradients are summed into leaves' ``.grad`` (only for
    ``inputs`` if given); without it (``autograd.grad``) the gradients of ``inputs`` are returned.
    """
    if user_given is None:
        user_given = [True] * len(roots)
    root_edges: list[Edge] = []
    for i, t in enumerate(roots):
        edge = gradient_edge(t)
        if edge[0] is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        root_edges.append(edge)
    root_nodes = [n for n, _ in root_edges if n is not None]

    captures: dict[Node, list[tuple[int, int]]] = {}
    input_edges = [gradient_edge(t) for t in inputs] if inputs is not None else []
    for k, (node, nr) in enumerate(input_edges):
        if node is not None:
            captures.setdefault(node, []).append((nr, k))
    deps, children = _discover(root_nodes, inputs is not None)
    if inputs is not None:
        deps = _prune(deps, children, list(captures))

    buffers = _Buffers(inplace=not create_graph)
    for (node, nr), g, user in zip(root_edges, root_grads, user_given, strict=True):
        assert node is not None
        buffers.add(node, nr, g, user)
    heap: list[tuple[int, int, Node]] = []
    for node in dict.fromkeys(root_nodes):
        if deps.get(node) == 0:
            heapq.heappush(heap, (-node._seq, id(node), node))

    results: list[Any] = [None] * len(input_edges)
    wanted = {id(n) for n, _ in input_edges if n is not None} if inputs is not None else None
    prev = grad_mode.is_grad_enabled()
    grad_mode._set(create_graph)
    heappop, heappush = heapq.heappop, heapq.heappush
    try:
        while heap:
            node = heappop(heap)[2]
            grads = buffers.pop(node)
            shared0 = False
            if buffers.shared:
                shared0 = buffers.release(grads[0])
                for g in grads[1:]:
                    buffers.release(g)
            if node._pre_hooks is not None or (hooks.LEAF_HOOKS and type(node) is AccumulateGrad):
                grads, shared0 = hooks.run_pre_hooks(node, grads, shared0, buffers.shared)
            if captures and node in captures:
                for nr, k in captures[node]:
                    results[k] = _add(results[k], grads[nr])
                    if grads[nr] is not None:
                        buffers.shared.add(id(grads[nr]))  # returned to the caller: never reuse
            if node._retained is not None:
                for nr, t in node._retained.items():
                    if grads[nr] is not None:
                        _retain(t, grads[nr])
            if type(node) is AccumulateGrad:
                if accumulate and (wanted is None or id(node) in wanted):
                    var = node.variable
                    if grads[0] is not None and var.grad_fn is not None:
                        raise RuntimeError("leaf variable has been moved into the graph interior")
                    _accumulate(var, grads[0], create_graph, shared0)
                    if hooks.POST_ACCUMULATE_HOOKS and grads[0] is not None:
                        hooks.run_post_accumulate(var)
                continue
            nexts = node.next_functions
            if grads[0] is not None or any(g is not None for g in grads):
                outs: Sequence[Any] = node.apply(tuple(grads))
            else:
                outs = [None] * len(nexts)
            if not retain_graph:
                node.release()
            dts = node.input_dtypes
            if dts is not None:  # torch's validate_outputs: a gradient takes its input's dtype
                outs = [
                    g.to(dt) if g is not None and dt is not None and g.dtype is not dt else g
                    for g, dt in zip(outs, dts, strict=False)
                ]
            twice: set[int] = _EMPTY
            if len(outs) > 1:
                twice = set()
                seen: set[int] = set()
                for g in outs:
                    if g is not None:
                        (twice if id(g) in seen else seen).add(id(g))
            for (nxt, nr), g in zip(nexts, outs, strict=False):
                if nxt is None or nxt not in deps:
                    continue
                if g is not None:
                    buffers.add(nxt, nr, g, id(g) in twice)
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    heappush(heap, (-nxt._seq, id(nxt), nxt))
    finally:
        grad_mode._set(prev)
    return results
