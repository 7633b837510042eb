"""What every op needs: wrapping Python scalars, dtype promotion, recording a node, unbroadcast."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce
from typing import Any, NoReturn

import numpy as np

from ownership.core import dtypes, grad_mode, inference_mode, layout
from ownership.core.autograd.node import (
    NO_EDGE,
    BackwardFn,
    OpNode,
    Saved,
    gradient_edge,
)
from ownership.core.dtypes import dtype as DType
from ownership.core.inference_mode import THREADS as INFERENCE_THREADS
from ownership.core.tensor import Tensor
from ownership.ops.iteration_order import elementwise_strides
from ownership.ops.op_table import ops
from ownership.ops.python_numbers import operand_in, refuse_uint64

Scalar = int | float | bool
_state = grad_mode._state
_inference = inference_mode._state  # read only while a thread is in it (INFERENCE_THREADS)


def is_scalar(x: Any) -> bool:
    """True for Python (and numpy) numbers."""
    return isinstance(x, int | float | bool | np.number | np.bool_)


def as_tensor_arg(x: Any) -> Tensor:
    """Turn an operand that is not a Tensor (list, numpy array) into one."""
    if isinstance(x, Tensor):
        return x
    arr = np.asarray(x)
    if arr.dtype.kind == "f" and arr.dtype != np.float64:
        arr = arr.astype(np.float32)
    return Tensor._wrap(arr)


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """torch's ``combine_categories``: ``lower`` matters only if its category is higher."""
    if higher is None or lower is None:
        return lower if higher is None else higher
    if higher is dtypes.bool_ or (lower.is_floating_point and not higher.is_floating_point):
        return dtypes.promote_types(higher, lower)
    return higher


def scalar_dtype(value: Any) -> DType:
    """The dtype a Python scalar takes when wrapped (bool, int64 or the default float)."""
    if isinstance(value, bool | np.bool_):
        return dtypes.bool_
    if isinstance(value, int | np.integer):
        return dtypes.int64
    return dtypes.get_default_dtype()


def result_type(dims: list[DType], zero_dims: list[DType], scalars: list[DType]) -> DType:
    """torch's result type: dimensioned tensors, then 0-d tensors, then Python scalars; a later
    group counts only when its category (bool < int < float) is higher.

    >>> from ownership.core.dtypes import float32, float64, int64
    >>> result_type([int64], [], [float32]), result_type([float32], [float64], [])
    (torch.float32, torch.float32)
    """

    def fold(ds: list[DType]) -> DType | None:
        return reduce(dtypes.promote_types, ds) if ds else None

    res = _combine(fold(dims), _combine(fold(zero_dims), fold(scalars)))
    assert res is not None
    return res


def result_dtype(a: Tensor, b: Any) -> DType:
    """torch's result dtype of a binary op between a tensor and a tensor or Python scalar."""
    if type(b) is float:
        return a.dtype if a.dtype.is_floating_point else dtypes.get_default_dtype()
    if isinstance(b, Tensor):
        if a.dtype is b.dtype:
            return a.dtype
        dims: list[DType] = []
        zeros: list[DType] = []
        for t in (a, b):
            (dims if t._data.ndim else zeros).append(t.dtype)
        return result_type(dims, zeros, [])
    if type(b) is int and b >= 2**63:
        refuse_uint64((a.dtype,), b)
    sd = scalar_dtype(b)
    if a.dtype.is_floating_point and sd is not dtypes.bool_ and not isinstance(b, complex):
        return a.dtype
    return result_type([a.dtype] if a._data.ndim else [], [] if a._data.ndim else [a.dtype], [sd])


def needs_grad(*ts: Any) -> bool:
    """Whether an op on these operands must be recorded (never in inference mode, even when
    ``enable_grad`` switched grad mode back on inside it)."""
    if not _state.enabled or (INFERENCE_THREADS.count and _inference.enabled):
        return False
    # torch: inference tensors carry no autograd key, so an op whose operands are all
    # inference tensors skips autograd (a Python number is wrapped as a normal tensor)
    all_inference = True
    wanted = False
    for t in ts:  # one pass (this runs for every op)
        if isinstance(t, Tensor):
            counter = t._lazy_counter  # not made yet (None): a normal tensor
            if counter is None or not counter.inference:
                all_inference = False
            if t._requires_grad:
                wanted = True
            else:
                base = t._base
                if base is not None and base._requires_grad:  # a view requires grad with its base
                    wanted = True
        else:
            all_inference = False
    return wanted and not all_inference


def inference_kernel(*ts: Any) -> bool:
    """Whether torch runs the op's own kernel with no autograd around it while the calls that
    kernel makes on the fresh tensors it allocates go through autograd: outside inference mode,
    when every operand is an inference tensor (which has no autograd key; a Python number is
    wrapped as a normal tensor, so it never is one). A kernel that copies into its fresh result
    then records ``CopyBackwards``; one that writes it through an out variant refuses an operand
    that requires grad (:func:`refuse_out_call`).
    """
    if INFERENCE_THREADS.count and _inference.enabled:
        return False
    for t in ts:
        if not isinstance(t, Tensor):
            return False
        counter = t._lazy_counter
        if counter is None or not counter.inference:
            return False
    return bool(ts)


def filled_from(out: Tensor, t: Tensor) -> None:
    """torch's kernels of ``max``/``min`` over a dim, ``cumsum`` and ``cumprod`` of a 0-d ``t``
    fill their fresh result with ``out.fill_(t)``: on an inference ``t``
    (``inference_kernel``) autograd sees that fill (``FillBackward3`` when ``t`` requires
    grad; ``out`` at version 1)."""
    if inference_kernel(t):
        ops.fill_(out, t)


def written_by_kernel(out: Tensor, *ts: Tensor, writes: int = 1) -> Tensor:
    """Count the ``writes`` that torch's kernel of an op on ``ts`` makes into its fresh result
    ``out`` through the dispatcher, and return ``out``: a reduction's ``fill_`` of its identity
    before it reduces (``sum_out``'s ``zero_`` of an empty result), ``dot``'s ``fill_`` of the
    product, a call of an out variant (``abs_out``), ``mean``'s ``sum_out`` then ``div_``. Under
    autograd those calls are below it and not seen; on inference ``ts`` (``inference_kernel``,
    where no autograd kernel runs) each is seen by torch's ADInplaceOrView kernel, which bumps the
    result's version: ``t.sum()`` starts at version 1, which a later saved-tensor error names
    ("is at version 2; expected version 1", fuzz program 202035)."""
    if inference_kernel(*ts):
        written_fresh(out, writes)
    return out


def written_fresh(out: Tensor, writes: int = 1) -> Tensor:
    """Count the ``writes`` that torch makes in place into ``out``, a fresh tensor just made,
    where autograd sees them (so in any mode), and return ``out``: a backward formula's
    ``zeros(sizes).scatter_(dim, indices, grad)`` (``zero_``, then ``scatter_``: version 2), an
    ``index_add_`` into zeros, a composite's ``close.__ior__(...)``, the ``squeeze_`` that ends
    ``vector @ matrix``. The writes a kernel makes below autograd, seen only on inference
    operands: :func:`written_by_kernel`."""
    counter = out._version_counter
    for _ in range(writes):
        counter.bump()
    return out


def refuse_out_call(name: str, t: Tensor) -> None:
    """torch's kernels of ``abs``, ``mean`` (``sum``'s), ``logsumexp`` ... write their fresh
    result through the out variant ``name``: on an inference tensor (``inference_kernel``)
    that call is the first autograd sees, and it refuses ``t`` when it requires grad."""
    if _state.enabled and t._requires_grad and inference_kernel(t):
        refuse_out_grad(name)


def refuse_out_grad(name: str) -> NoReturn:
    """autograd's refusal of the out variant ``name`` called, grad mode on, with an argument
    that requires grad (:mod:`ownership.out_argument`)."""
    raise RuntimeError(
        f"{name}(): functions with out=... arguments don't support automatic "
        "differentiation, but one of the arguments requires grad."
    )


def touch_history(t: Tensor) -> None:
    """Read a stale view's history first, as torch does before running an op on it.

    torch collects an op's input edges before computing, so a view whose base changed since it
    was made raises its rebase error before, e.g., a view-size error of the op itself. In
    inference mode torch runs no autograd code at all, even with grad mode on: nothing is read.
    """
    if (
        t._base is not None
        and _state.enabled
        and not (INFERENCE_THREADS.count and _inference.enabled)
    ):
        t._node()  # refreshing a stale view is the point


def read_histories(args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    """:func:`touch_history` of every tensor among an op's arguments, in order (those of a list
    argument, ``cat``'s, included): torch's ``collect_next_edges`` of the op's inputs, which
    :func:`ownership.core.op_registry.edges_first` asks for when the op's own check failed."""
    for arg in (*args, *kwargs.values()):
        if isinstance(arg, Tensor):
            touch_history(arg)
        elif isinstance(arg, list | tuple):
            for item in arg:
                if isinstance(item, Tensor):
                    touch_history(item)


# The input dtypes of a node, one tuple object per combination for one or two inputs (every
# tensor's dtype is one of ``dtypes.ALL``; a non-tensor input's is None): every node holds one,
# and a shared tuple is one object fewer per op for the cyclic GC to traverse.
_SHARED: dict[tuple[DType | None, ...], tuple[DType | None, ...]] = {
    **{one: one for one in ((dt,) for dt in dtypes.ALL)},
    **{pair: pair for pair in ((a, b) for a in (*dtypes.ALL, None) for b in (*dtypes.ALL, None))},
}


def shared_dtypes(dts: tuple[DType | None, ...]) -> tuple[DType | None, ...]:
    """The input dtypes of a node, as one tuple shared by every node of them (two inputs, or
    one tensor input; any other tuple is kept as given)."""
    return _SHARED.get(dts, dts)


def _edges_and_dtypes(
    inputs: Sequence[Any],
) -> tuple[tuple[tuple[Any, int], ...], tuple[DType | None, ...]]:
    """The edges of a node to ``inputs`` and their dtypes (``NO_EDGE`` and None for a
    non-tensor; the dtypes :func:`shared_dtypes`): what :func:`run_op` gives a node."""
    edges: list[tuple[Any, int]] = []
    dts: list[DType | None] = []
    for t in inputs:
        if isinstance(t, Tensor):
            edges.append(gradient_edge(t))
            dts.append(t.dtype)
        else:
            edges.append(NO_EDGE)
            dts.append(None)
    return tuple(edges), shared_dtypes(tuple(dts))


def run_op(
    inputs: Sequence[Any],
    recorded: bool,
    kernel: Callable[..., Tensor],
    name: str,
    backward: BackwardFn,
    ctx: Saved | None = None,
    save: Callable[..., object] | None = None,
    after: Callable[[OpNode, Tensor], object] | None = None,
    args: tuple[Any, ...] = (),
) -> Tensor:
    """Run an out-of-place differentiable op under torch's autograd contract; return its result.
    The counterpart of :func:`~ownership.core.inplace_rules.run_inplace`, in torch's order:

    1. **Autograd**, only when ``recorded`` (``needs_grad`` of the operands): the node ``name``
       with its context ``ctx`` and edges to ``inputs`` (a non-tensor gets none; an input view
       whose base was written since reads its history: its rebase error), then
       ``save(node, *args)``, what the backward needs (a saved inference tensor is refused, a
       pack hook runs). torch's autograd kernel does both *before* it calls the op's own kernel,
       so these come first.
    2. **The kernel**: ``kernel(*args)`` makes the op's own checks (shapes that do not
       broadcast, dtypes, arguments), in torch's order, in any grad mode, and returns the fresh
       result. Not recorded, this is all there is to do.
    3. **The history**, if recorded: the result gets the node (:func:`attach`), then
       ``after(node, result)`` keeps what the kernel found (its result: ``save_result``).

    ``args`` are what the kernel and ``save`` work on (an op's operands and options), so that
    an op can name module-level functions rather than make new ones at every call.
    """
    if not recorded:
        return kernel(*args)  # 2
    edges, dts = _edges_and_dtypes(inputs)  # 1: the node
    node = OpNode(name, edges, backward, ctx, 1, dts)
    if save is not None:
        save(node, *args)  # 1
    out = kernel(*args)  # 2
    attach(out, node)  # 3
    if after is not None:
        after(node, out)
    return out


def attach(out: Tensor, node: OpNode) -> OpNode:
    """Make ``node`` the history of ``out``, its output 0: the one place an op's result gets
    its ``grad_fn`` (the slot behind it), ``requires_grad`` and ``output_nr``. As torch's
    ``set_history``, it refuses a result autograd cannot differentiate (an integer or bool one:
    an op on an integer tensor that has a history, which a write through a view gives it)."""
    if not out.dtype.is_floating_point:
        raise RuntimeError(f"Autograd not support dtype: {out.dtype.short}")
    out._history = node
    out._requires_grad = True
    out._output_nr = 0
    return node


_SHAPES: dict[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]] = {}
_SHAPES_KEPT = 4096  # distinct shape combinations shared at most (a program has a few)


def shared_shapes(shapes: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """``shapes`` (the input shapes a node keeps), as one tuple shared by every node with these
    shapes: no new tuples kept per op for the cyclic GC to count (the first few thousand
    combinations seen are shared; any later one is kept as given)."""
    shared = _SHAPES.get(shapes)
    if shared is None:
        if len(_SHAPES) < _SHAPES_KEPT:
            _SHAPES[shapes] = shapes
        return shapes
    return shared


NEEDED_PAIRS = (((False, False), (False, True)), ((True, False), (True, True)))
"""``NEEDED_PAIRS[first][second]`` is ``(first, second)``: the flags of a binary node, shared."""


def inputs_needed(node: OpNode) -> tuple[bool, ...]:
    """Which inputs of ``node`` get a gradient: those with an edge in the graph.

    This is torch's ``should_compute_output``, and it decides what an op saves: a view made under
    no_grad reports ``requires_grad=True`` but has no edge, so nothing is saved for its gradient.
    The flags are kept in the node's ``needed`` slot for the backward, decided now: a later
    in-place write through a view may cut an edge (``CopySlices``) but not this node's gradients.
    """
    edges = node._edges
    if len(edges) == 2:  # a binary op: no loop, and one of four shared tuples (no new object)
        first, second = edges[0][0] is not None, edges[1][0] is not None
        flags: tuple[bool, ...] = NEEDED_PAIRS[first][second]
    else:
        flags = tuple([edge[0] is not None for edge in edges])
    node.needed = flags
    return flags


def save_product(
    node: OpNode, self_name: str, a: Tensor, other_name: str, b: Tensor, *, other_first: bool
) -> None:
    """What a product's node saves (``d self = grad * other``, ``d other = self * grad``): each
    operand only when the *other* gets a gradient (:func:`inputs_needed`, whose flags the node
    keeps), an unsaved one shown as None; in torch's order (``other_first``: ``mm``'s ``mat2``
    before ``self``; ``dot`` and ``mv`` save ``self`` first). ``mul`` and ``div``, whose other
    operand may be a Python number, save by ``arithmetic.save_binary``."""
    a_needed, b_needed = inputs_needed(node)
    if other_first:
        node.save(other_name, b if a_needed else None)
    node.save(self_name, a if b_needed else None)
    if not other_first:
        node.save(other_name, b if a_needed else None)


wrap = Tensor._wrap
"""``wrap(arr, dt)``: a fresh tensor of dtype ``dt`` over ``arr`` (cast if needed): every op's
result (:meth:`ownership.core.tensor.Tensor._wrap`, under the name the ops use)."""


def lay_out(
    out: Tensor, *operands: Any, common: DType | None = None, condition: Tensor | None = None
) -> None:
    """Give ``out``, the fresh result of an elementwise op on ``operands`` (tensors or numbers,
    in torch's order), torch's strides (:func:`~ownership.ops.iteration_order.elementwise_strides`), copied
    to them when numpy laid it out otherwise (operands of two layouts: numpy falls back to
    row-major, torch follows the first; an empty result). Operands all row-major need nothing:
    numpy's result is row-major too (:func:`~ownership.core.layout.row_major`: a size-1 dim's
    stride counts), and an operand broadcast from one element (every stride 0: a sum's
    gradient) orders no dimension, for torch as for numpy, no more than a number does. A power
    by a number (``x ** 2``, ``2 ** x``) is a unary kernel in torch, whose layout is the input's.

    ``common``: the dtype the op computes in, when torch's iterator casts its inputs to it
    (``promote_inputs_to_common_dtype``, or ``where``'s own ``to``): an operand of another dtype
    takes part as its cast, laid out as ``to`` lays it out
    (:func:`~ownership.core.layout.preserved_strides`: ``x * y.double()`` of a non-dense ``x``
    of float32 follows ``x.double()``). ``condition``: ``where``'s, the first operand, never cast."""
    arr = out._data
    if arr.size:
        for t in operands:
            if isinstance(t, Tensor) and not layout.row_major(t._data) and any(t._data.strides):
                break
        else:
            if condition is None or layout.row_major(condition._data):
                return  # every operand row-major or one element (the common case)
    operand_geometry: list[tuple[Sequence[int], Sequence[int]] | None] = []
    if condition is not None:
        operand_geometry.append((condition._data.shape, condition._stride()))
    for t in operands:
        if not isinstance(t, Tensor):
            operand_geometry.append(None)
            continue
        shape, strides = t._data.shape, t._stride()
        if common is not None and t.dtype is not common:
            strides = layout.preserved_strides(shape, strides)
        operand_geometry.append((shape, strides))
    lay_out_as(out, elementwise_strides(arr.shape, tuple(operand_geometry)))


def lay_out_as(out: Tensor, found: tuple[int, ...] | None) -> None:
    """Give the fresh result ``out`` the element strides ``found`` (None: row-major), its values
    copied when numpy laid them out otherwise."""
    arr = out._data
    shape = arr.shape
    if not arr.size:
        if found is not None:
            out._data = layout.empty_strided(shape, found, arr.dtype)
        return
    if found is None:
        if layout.row_major(arr):
            return
        found = layout.contiguous_strides(shape)
    item = arr.itemsize
    strides = [s * item for s in found]
    if strides != list(arr.strides):
        laid = np.ndarray(shape, arr.dtype, np.empty(arr.size, arr.dtype), 0, strides)
        laid[...] = arr
        out._data = laid


def zeros_like_grad(g: Tensor, contiguous: bool = False) -> Tensor:
    """torch's ``zeros_like(grad)`` of a backward formula (the gradient of the values an op
    replaced, or of a step function): zeros of ``g``'s shape and dtype, laid out as
    ``preserve_format`` lays ``g`` out (row-major with ``contiguous``, ``CopyBackwards``' legacy
    contiguous format); a new tensor without history, whatever ``g`` holds (``g * 0`` would make
    an infinite or nan gradient nan, and record a product under ``create_graph``)."""
    arr = g._data
    if contiguous:
        return wrap(np.zeros(arr.shape, arr.dtype), g.dtype)
    zeros = layout.preserved(arr, g._stride(), arr.dtype)
    zeros[...] = 0
    return wrap(zeros, g.dtype)


_UNBROADCAST: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}
"""The axes :func:`sum_to` sums, by (shape, gradient shape)."""


def sum_to(g: Tensor, shape: tuple[int, ...] | None) -> Tensor:
    """Sum a broadcast gradient back to ``shape`` (differentiable); None: kept as it is, for
    ``validate_outputs`` to reduce (an input whose shape changed since autograd recorded it)."""
    if shape is None:
        return g
    if type(shape) is not tuple:  # a Size or a list: the key below is a plain tuple
        shape = tuple(shape)
    gshape = g._data.shape
    if gshape == shape:
        return g
    if not shape:  # torch's sum_to of a 0-d shape is the whole sum (no view of it)
        total: Tensor = ops.sum(g)
        return total
    key = (shape, gshape)
    axes = _UNBROADCAST.get(key)
    if axes is None:  # computed once per pair of shapes (a training loop asks the same ones)
        axes = unbroadcast_axes(shape, gshape)
        if len(_UNBROADCAST) >= 256:
            _UNBROADCAST.clear()
        _UNBROADCAST[key] = axes
    # the ops themselves: ``g.sum(dim=axes, keepdim=True).reshape(shape)`` without parsing
    out = ops.sum(g, axes, True) if axes else g
    if len(gshape) != len(shape):
        out = ops.reshape(out, shape)
    return out


def unbroadcast_axes(shape: Sequence[int], grad_shape: Sequence[int]) -> tuple[int, ...]:
    """The axes of ``grad_shape`` to sum over to bring a gradient back to the ``shape`` it was
    broadcast from.

    >>> unbroadcast_axes((3, 1), (2, 3, 4))
    (0, 2)
    >>> unbroadcast_axes((2, 3), (2, 3))
    ()
    """
    lead = len(grad_shape) - len(shape)
    return tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and grad_shape[i + lead] != 1
    )


def scalar_value(x: Any) -> Any:
    """A Python number from a scalar operand (numpy numbers included); a numpy bool is read as
    torch's parser reads it, as a float (``int_tensor * np.bool_(True)`` is a float tensor)."""
    if isinstance(x, np.bool_):
        return float(x)
    return x.item() if isinstance(x, np.generic) else x


def operand(b: Any) -> Any:
    """The second operand of an elementwise op: a Tensor, or a Python number, as torch takes it
    (a Python int only within torch's 64-bit range: :func:`python_int`)."""
    tb = type(b)
    if tb is float or isinstance(b, Tensor):
        return b
    if tb is int:
        return python_int(b)
    if is_scalar(b):
        return scalar_value(b)
    return as_tensor_arg(b)


def python_int(b: int) -> int:
    """A Python int as torch reads a number operand: as an int64, else as a uint64, else
    torch's OverflowError (raised before any dtype is looked at)."""
    if -(2**63) <= b < 2**64:
        return b
    if b < 0:
        raise OverflowError("can't convert negative int to unsigned")
    raise OverflowError("int too big to convert")


def raw(b: Any) -> Any:
    """The numpy array of a Tensor operand, or the number itself."""
    return b._data if isinstance(b, Tensor) else b


def check_broadcast(a: Tensor, b: Any) -> None:
    """Raise torch's error when two tensor operands cannot broadcast together."""
    if isinstance(b, Tensor) and a._data.shape != b._data.shape:
        layout.broadcast_shapes(a._data.shape, b._data.shape)


def binary_operands(a: Tensor, b: Any) -> tuple[Any, DType]:
    """How an elementwise op reads its second operand ``b`` (already as torch takes it:
    :func:`operand`), in torch's order: the result dtype (:func:`result_dtype`), torch's error if
    the shapes cannot broadcast (:func:`check_broadcast`); returns ``b``'s numpy value in the
    result dtype (:func:`~ownership.ops.python_numbers.operand_in`) and the dtype."""
    dt = result_dtype(a, b)
    check_broadcast(a, b)
    return operand_in(b, dt), dt


def shape_of(x: Any) -> tuple[int, ...]:
    """The shape of a Tensor operand; ``()`` for a number."""
    return tuple(x._data.shape) if isinstance(x, Tensor) else ()
