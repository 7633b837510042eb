"""The backward engine: one iterative loop over the graph in a deterministic order.

Each node runs once its consumers have, in torch's order (:class:`ReadyQueue`); gradients wait
in :class:`InputBuffers`, written only where nobody else can see them. What a backward reads of
its arguments (:func:`make_seeds`, :func:`check_roots`, :func:`engine_flag`) is here too, for
``Tensor.backward`` and :mod:`ownership.autograd`'s functions alike.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership.core import grad_mode, layout, observers
from ownership.core.autograd import grad_dtype, hooks
from ownership.core.autograd.accumulate_grad import (
    LEAF_MOVED,
    accumulate,
    accumulated,
    dense,
    memory_unseen,
    retain,
)
from ownership.core.autograd.node import AccumulateGrad, Edge, Node, gradient_edge
from ownership.core.op_registry import quiet
from ownership.core.storage import is_engine_tensor
from ownership.core.warn_once import outside_level, warn_once

CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)
"""torch's warning, once per program, when ``backward()`` builds a graph."""


def seed_ones(arr: Any) -> Any:
    """The implicit gradient of a one-element output ``arr``: torch's ``ones_like(output,
    memory_format=torch.preserve_format)``, its strides kept exactly."""
    if arr.ndim == 0:
        return np.array(1, arr.dtype)
    ones = layout.preserved(arr, [s // arr.itemsize for s in arr.strides], arr.dtype)
    ones[...] = 1
    return ones


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a tensor of the engine, as torch's argument of a backward reads one."""
    return is_engine_tensor(x) and hasattr(x, "requires_grad")


def tensors_given(x: Any) -> list[Any]:
    """torch's reading of ``outputs``/``inputs``: one tensor, or any sequence (``tuple(x)``)."""
    return [x] if is_tensor(x) else list(tuple(x))  # tuple(None): Python's own TypeError


def gradients_given(given: Any, n: int) -> list[Any]:
    """torch's reading of ``gradient``/``grad_outputs``: a tensor, or a sequence whose first
    ``n`` entries (one per output) are tensors or None."""
    grads = tensors_given(given)
    for g in grads[:n]:
        if g is not None and not is_tensor(g):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    return grads


def make_seeds(outs: Sequence[Any], gos: Sequence[Any]) -> list[Any]:
    """torch's ``_make_grads``: each output's seed (``zip``'s pairs): ones for a scalar output
    given None, a given gradient's shape checked."""
    seeds = []
    for i, (o, g) in enumerate(zip(outs, gos, strict=False)):
        if g is None:
            if o.requires_grad and o._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if o.requires_grad and not o.dtype.is_floating_point:  # a write made it require grad
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {o.dtype}"
                )
            g = o._wrap(seed_ones(o._data), o.dtype)
        elif g._data.shape != o._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                f"has a shape of {o.shape}."
            )
        seeds.append(g)
    return seeds


def check_roots(outs: Sequence[Any], seeds: Sequence[Any]) -> None:
    """The engine's checks of the roots: one seed per output, each output with a history."""
    if len(seeds) != len(outs):
        raise RuntimeError(f"got {len(outs)} tensors and {len(seeds)} gradients")
    for i, o in enumerate(outs):
        if not o.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )


def engine_flag(value: Any) -> bool:
    """A flag of torch's engine call (``retain_graph``...), read as its binding reads an unsigned
    byte: anything with ``__index__`` from 0 to 255, else torch's TypeError or OverflowError."""
    if value is True or value is False:
        return value
    if not hasattr(type(value), "__index__"):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    n = operator.index(value)
    if n < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if n > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return bool(n)


RECORDED: weakref.WeakKeyDictionary[Node, dict[int, tuple[int, ...]]] = weakref.WeakKeyDictionary()
"""The shapes recorded for ``(node, output_nr)`` that differ from their tensor's now."""

_any_recorded = False  # whether any shape was ever recorded


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


DTYPES: weakref.WeakKeyDictionary[Node, dict[int, Any]] = weakref.WeakKeyDictionary()
"""The dtypes recorded for ``(node, output_nr)`` that differ from their tensor's now: a gradient
reaching the node is cast to it (torch's ``validate_outputs`` reads the receiving node's)."""


def note_dtype_change(t: Any) -> None:
    """``.data`` is about to change the dtype of ``t``: its ``grad_fn`` keeps the first one (a
    leaf's accumulator keeps its ``grad_dtype``)."""
    if t._history is not None:
        DTYPES.setdefault(t._history, {}).setdefault(t._output_nr, t.dtype)


def shape_recorded_for(t: Any) -> tuple[int, ...] | None:
    """The shape autograd recorded for ``t`` where ``.data`` or a resize changed it since (None:
    none recorded, its shape is autograd's): torch reduces a broadcast gradient to this one."""
    node: Node | None = t._history
    nr = t._output_nr
    if node is None:
        node, nr = t._acc(), 0
    return None if node is None else RECORDED.get(node, {}).get(nr)


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


def validate_roots(
    roots: Sequence[Any], edges: Sequence[tuple[Node | None, int]], grads: list[Any]
) -> None:
    """torch's ``validate_outputs`` of the roots' gradients, in place: each checked against the
    shape recorded where ``.data`` or a resize changed it, then cast to its node's dtype (a leaf's
    accumulator's ``grad_dtype``, else the root's own or the one ``.data`` replaced), before
    any hook sees it."""
    for i, ((node, nr), g) in enumerate(zip(edges, grads, strict=True)):
        if node is None or g is None:
            continue
        if RECORDED:
            g = _shape_checked(node, nr, g, i, None, None)
        if type(node) is AccumulateGrad:
            g = grad_dtype.cast(node.grad_dtype, g)
        elif g.dtype is not (dt := DTYPES.get(node, {}).get(nr, roots[i].dtype)):
            g = g.to(dt)
        grads[i] = g


def validate_outputs(
    node: Node, outs: list[Any], shapes: Sequence[tuple[int, ...]] | None = None
) -> None:
    """torch's ``validate_outputs`` of what ``node`` returned, in place: each gradient checked
    against the shape recorded for its input where ``.data`` or a resize changed the tensor since
    (:func:`note_shape_change`; or ``shapes``, a custom Function's inputs'), then cast to its
    input's dtype (the one ``note_dtype_change`` recorded where ``.data`` changed it since)."""
    if shapes is not None or (_any_recorded and RECORDED):
        for i, (nxt, nr) in enumerate(node._edges[: len(outs)]):
            g = outs[i]
            if nxt is not None and g is not None:
                outs[i] = _shape_checked(nxt, nr, g, i, node, None if shapes is None else shapes[i])
    dts = node.input_dtypes or ()  # one per edge
    edges = node._edges
    for i in range(min(len(outs), len(edges))):
        g, (nxt, nr) = outs[i], edges[i]
        if g is None or nxt is None:
            continue
        if type(nxt) is AccumulateGrad:  # torch reads the next node's metadata: the leaf's
            outs[i] = grad_dtype.cast(nxt.grad_dtype, g)
            continue
        dt = dts[i] if i < len(dts) else None
        if DTYPES:
            dt = DTYPES.get(nxt, {}).get(nr, dt)
        if dt is not None and g.dtype is not dt:
            outs[i] = g.to(dt)


_ACCUMULATOR = 1 << 64
"""The rank of an ``AccumulateGrad``: above every node's sequence number."""


class ReadyQueue:
    """The nodes ready to run, popped in torch's order: the largest sequence number first (an
    ``AccumulateGrad``'s is the largest), ties as libstdc++'s heap algorithm leaves them (four
    leaves of one ``cat`` accumulate as 0, 2, 1, 3), which this max-heap runs step for step."""

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
    only into a buffer nobody else can see (``memory_unseen``)."""

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


def _add(a: Any, b: Any) -> Any:
    return b if a is None else a if b is None else a + b


def _computed_in(deps: dict[Node, int]) -> Any:
    """``validate_outputs`` for a node whose hooks see its gradients: a built-in node (an op's, a
    view's ``AsStridedBackward0``, ``CopySlices``) computes none for an input whose edge leads to
    no node of this backward (torch's ``should_compute_output``), so its post hooks see None
    there; a custom Function's are kept as its backward returned them (``Node.keeps_unneeded``)."""

    def validate(node: Node, outs: list[Any]) -> None:
        if not node.keeps_unneeded:
            for i, (nxt, _) in enumerate(node._edges[: len(outs)]):
                if nxt is None or nxt not in deps:
                    outs[i] = None
        validate_outputs(node, outs)

    return validate


def _capture(captured: list[tuple[int, int]], grads: list[Any], results: list[Any]) -> None:
    for nr, k in captured:
        results[k] = _add(results[k], grads[nr])


def _discover(roots: list[Node], need_children: bool) -> tuple[dict[Node, int], dict[Node, Any]]:
    """Every node reachable from ``roots`` (roots first), how many edges point at it, and, if
    asked, its children."""
    deps = dict.fromkeys(roots, 0)
    children: dict[Node, list[Node]] = {}
    stack = list(deps)
    found = stack.append
    for node in stack:  # grows while iterated
        if need_children:
            children[node] = [nxt for nxt, _ in node._edges if nxt is not None]
        for nxt, _ in node._edges:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                found(nxt)
    return deps, children


def _prune(
    deps: dict[Node, int], children: dict[Node, Any], targets: list[Node]
) -> dict[Node, int]:
    """Keep only the nodes on a path to a target."""
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
) -> list[Any]:
    """Run backward from ``roots`` seeded with ``root_grads`` (which the engine never writes):
    with ``accumulate`` into leaves' ``.grad`` (only ``inputs``' if given), else the gradients of
    ``inputs`` returned."""
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
    if inputs is not None:
        for t in inputs:  # torch's checks, input by input
            if not is_engine_tensor(t):
                raise RuntimeError(
                    f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}"
                )
            if accumulate:
                t._retain_grad()
            if not t.requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
    input_edges = [gradient_edge(t) for t in inputs] if inputs is not None else []
    for k, (node, nr) in enumerate(input_edges):
        if node is not None:
            captures.setdefault(node, []).append((nr, k))
    deps, children = _discover(root_nodes, inputs is not None)
    unneeded: frozenset[Node] = frozenset()
    if inputs is not None:
        deps = _prune(deps, children, list(captures))
        if not accumulate:  # ``autograd.grad`` runs no input's node that leads to no input
            unneeded = frozenset(
                n for n in captures if not any(c in deps for c in children.get(n, ()))
            )
        lone = root_edges[0][0] if len(root_edges) == 1 else None
        if lone is not None and lone not in deps:
            # torch runs a lone root's node (its tensor hooks only) even when no input needs it
            deps[lone] = 0
            unneeded = unneeded | {lone}
    grads = list(root_grads)
    validate_roots(roots, root_edges, grads)
    if accumulate:
        captures = {}  # backward() returns nothing: no gradient is held for the caller
        if create_graph:
            warn_once(CREATE_GRAPH_CYCLE, stacklevel=outside_level() + 1)  # the user's caller

    buffers = InputBuffers(inplace=not create_graph)
    for (node, nr), g in zip(root_edges, grads, strict=True):
        assert node is not None
        buffers.add(node, nr, g)
    del grads
    queue = ReadyQueue()
    for node in reversed(dict.fromkeys(reversed(root_nodes))):  # a root twice: ready at its last
        if deps.get(node) == 0:
            queue.push(node)

    results: list[Any] = [None] * len(input_edges)
    wanted: set[int] | None = set()  # the accumulators that may write ``.grad`` (None: all)
    if accumulate:
        wanted = None if inputs is None else {id(n) for n, _ in input_edges if n is not None}
    prev = grad_mode.is_grad_enabled()
    grad_mode._set(create_graph)
    try:
        _run(queue, deps, buffers, captures, results, wanted, retain_graph, unneeded)
    finally:
        grad_mode._set(prev)
    return results


def _run(
    queue: ReadyQueue,
    deps: dict[Node, int],
    buffers: InputBuffers,
    captures: dict[Node, list[tuple[int, int]]],
    results: list[Any],
    wanted: set[int] | None,
    retain_graph: bool,
    unneeded: frozenset[Node],
) -> None:
    """The ready-queue loop: a gradient is held only where torch holds it (a buffer, a capture)."""
    anomaly = observers.ANOMALY
    ready = queue.heap
    while ready:
        node: Node = queue.pop()
        grads = buffers.pop(node)
        is_leaf = type(node) is AccumulateGrad
        skipped = bool(unneeded) and node in unneeded
        # torch captures the gradient of a node that runs before its hooks (they run with the
        # node), of a skipped one after its tensor hooks and retain_grad (evaluate_function)
        captured = captures[node] if captures and node in captures else None
        if captured is not None and not skipped:
            _capture(captured, grads, results)
        hooked = node._pre_hooks
        if hooked is not None or (is_leaf and hooks.LEAF_HOOKS):
            hooks.run_pre_hooks(node, grads)
        if node._retained is not None:
            for nr, ref in node._retained.items():
                t = ref()
                if t is not None and grads[nr] is not None:
                    retain(t, grads[nr])
            t = None
        if captured is not None and skipped:
            _capture(captured, grads, results)
        if skipped:  # captured nodes, or a lone root no input needs
            grads.clear()
            continue
        if is_leaf:
            if wanted is None or id(node) in wanted:
                var = node.variable  # type: ignore[attr-defined]
                kept: tuple[Any, ...] | None = None  # what the node's post hooks get
                if hooked is not None:
                    if hooked.pre:
                        grads[:] = hooks.run_pre(hooked, tuple(grads))
                    if hooked.post:
                        kept = tuple(grads)
                g0 = grads[0]
                if g0 is not None and var._node() is not None:  # (a view's refreshed)
                    raise RuntimeError(LEAF_MOVED)
                grads.clear()
                # held by g0 and the callee (and by the post hooks' copy, as torch expects)
                accumulate(var, g0, grad_mode._state.enabled, 2 if kept is None else 3)
                got = g0 is not None
                g0 = None
                if observers.ACCUMULATIONS and got:
                    accumulated(var)
                if hooks.POST_ACCUMULATE_HOOKS and got:
                    hooks.run_post_accumulate(var)
                if kept is not None:
                    hooks.run_post(hooked, (), kept)  # type: ignore[arg-type]
                    kept = None
            continue
        nexts = node._edges
        if hooked is not None and (hooked.pre or hooked.post):
            outs = hooks.call_node(node, grads, _computed_in(deps))
        else:
            for g in grads:  # `is`, never `==`: a tensor's == is an op
                if g is not None:
                    g = None
                    outs = list(node.apply(tuple(grads)))
                    if node.input_dtypes is not None or RECORDED or DTYPES:
                        validate_outputs(node, outs)  # before the node lets its saved go
                    break
            else:
                outs = [None] * len(nexts)
        grads.clear()  # torch drops a node's input gradients before passing its outputs on
        if not retain_graph:
            node.release()
        if anomaly.enabled and anomaly.check_nan:
            anomaly.check_result(node.name(), outs)
        n_outs = len(outs)
        for i, (nxt, nr) in enumerate(nexts):
            if nxt is None or nxt not in deps:
                continue  # a gradient for no edge, or for a node not run, is dropped
            if i < n_outs and outs[i] is not None:
                g = outs[i]
                outs[i] = None  # moved into the buffer, as torch moves it
                buffers.add(nxt, nr, g)
                g = None
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                queue.push(nxt)
        outs.clear()
