"""The node of a binary op between a tensor and a Python number (``x * 1.01``, ``x + 0.1``).

:func:`record_number` makes what :func:`~ownership.ops.common.record` then
:func:`~ownership.ops.arithmetic.binary_node` make for such an op, with their questions answered:
the number has no edge and no dtype, its shape is ``()``, it is ``other_number``, and only
``self`` may need a gradient (test_chain_fast_paths compares the two nodes field by field).
"""

from __future__ import annotations

from typing import Any

from ownership._tensor import Tensor
from ownership.autograd.node import (
    NO_EDGE,
    BackwardFn,
    OpNode,
    Saved,
    gradient_edge,
    leaf_edge,
    next_seq,
)
from ownership.ops.common import NEEDED_PAIRS, shared_dtypes, shared_shapes

_new = object.__new__
_NO_GRADIENT = NEEDED_PAIRS[0][0]
_SELF_NEEDED = NEEDED_PAIRS[1][0]
_DTYPES: dict[Any, tuple[Any, ...]] = {}
"""A node's ``input_dtypes`` by the tensor's dtype: ``shared_dtypes((dtype, None))``, looked up
without making the pair (a handful of dtypes)."""
_SHAPES: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}
"""A node's ``input_shapes`` by the tensor's shape: ``shared_shapes((shape, ()))``, looked up
without making the pair (the first few thousand shapes; any later one is asked each time)."""
_SHAPES_KEPT = 4096


def _dtypes_of(dt: Any) -> tuple[Any, ...]:
    dts = _DTYPES[dt] = shared_dtypes((dt, None))
    return dts


def _shapes_of(shape: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    shapes = shared_shapes((shape, ()))
    if len(_SHAPES) < _SHAPES_KEPT:
        _SHAPES[shape] = shapes
    return shapes


def record_number(
    out: Tensor, name: str, a: Tensor, b: Any, backward: BackwardFn, ctx: Saved
) -> OpNode:
    """``binary_node(record(out, name, (a, b), backward, ctx), a, b)`` for a tensor ``a`` and a
    Python number ``b``: the node ``name`` of ``out``, with an edge to ``a`` (and none to
    ``b``), the inputs' shapes and dtypes, ``b`` as ``other_number`` and the flags ``needed``."""
    # ``gradient_edge(a)`` as ``record`` writes it out: (grad_fn, output_nr) for an input with a
    # history and no base, ``leaf_edge`` for one with neither; a view asks it
    fn = a._history
    edge = (
        gradient_edge(a)
        if a._base is not None
        else (fn, a._output_nr)
        if fn is not None
        else leaf_edge(a)
    )
    node = _new(OpNode)
    node._edges = (edge, NO_EDGE)
    node.num_outputs = 1
    node._seq = next_seq()
    node._retained = None
    node._pre_hooks = None
    dt = a.dtype
    node.input_dtypes = _DTYPES.get(dt) or _dtypes_of(dt)
    node._name = name
    node._backward = backward
    node._ctx = ctx
    node._saved = None
    node._freed_keys = None
    node._state_keys = ()
    shape = a._data.shape
    node.input_shapes = _SHAPES.get(shape) or _shapes_of(shape)
    node.other_number = b
    node.needed = _NO_GRADIENT if edge[0] is None else _SELF_NEEDED
    out._history = node  # ``_grad_fn``, written through its slot (one attribute lookup less)
    out._requires_grad = True
    out._output_nr = 0
    return node
