"""The in-place contract: what a write into a tensor checks, does, and leaves behind.

Chasing "a leaf Variable that requires grad is being used in an in-place operation"? Read
:func:`run_inplace` top to bottom: it makes torch's checks in torch's order.

1. **Autograd**, only when the op will be recorded (grad mode on, an operand requires grad):
   :func:`check_inplace`, torch's ``check_inplace`` (``torch/csrc/autograd/VariableTypeUtils.h``),
   which every generated in-place kernel calls before anything else: a view whose creation meta
   forbids a rebase, then a view of a leaf that requires grad, then a leaf that requires grad.
   Then, as the generated kernel goes on before it calls the op's own kernel, the node's edges
   (an input view whose base was written since reads its history: its rebase error) and what the
   node saves (``save``: a saved inference tensor is refused, a pack hook runs): so these errors
   come before any of the op's own checks below.
2. **The op's own arguments** (``clamp_()`` without bounds, ``fill_`` with a 1-d value...): torch
   checks them in the op's kernel, so after the autograd checks.
3. **The kernel**, in the order ``TensorIteratorBase::build`` checks (``aten/src/ATen/
   TensorIterator.cpp``: ``compute_mem_overlaps``, ``compute_shape``, ``compute_types``), in any
   grad mode: memory overlap (:func:`check_no_overlap`: inside the written tensor, then between it
   and each input), then shape (the operands broadcast, and the result does not outgrow the
   written tensor), then dtype (the result casts to the written tensor's dtype)
   (:func:`check_result`).
4. **The write**, then **one version bump** (:meth:`~ownership.core.storage.VersionCounter.bump`;
   torch's ``increment_version``, in the ADInplaceOrView kernel), in any grad mode. The
   before-write observers are called first (:func:`~ownership.core.observers.before_write`):
   while an ``allow_mutation_on_saved_tensors`` block is open, the saved tensors the write is
   about to change are cloned there (:func:`ownership.autograd.graph.clone_saved_before_write`:
   torch's dispatch mode, which sees the op after the autograd kernel has saved what it saves;
   torch's mode comes before the kernel's checks of step 3, an order only an inference tensor
   written with a wrong argument inside the block could tell).
5. **The new history**, if recorded: :func:`~ownership.core.autograd.view_history.rebase_history`
   (``CopySlices`` on the base of a written view; :mod:`ownership.core.autograd.view_history` keeps how
   a view's history follows its base).

The in-place view ops (``t_``, ``squeeze_``..., in ``ownership/ops/inplace_views.py``) and a custom
Function's ``ctx.mark_dirty`` make the same autograd check with :func:`check_inplace`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout, observers
from ownership.core.autograd.node import BackwardFn, OpNode, gradient_edge
from ownership.core.autograd.view_history import PLAIN, handle_view_on_rebase, rebase_history
from ownership.core.dtypes import dtype as DType
from ownership.core.storage import is_engine_tensor

_may_share = np.may_share_memory

if TYPE_CHECKING:
    from ownership.core.tensor import Tensor

__all__ = [
    "check_cast",
    "check_inplace",
    "check_inputs_apart",
    "check_no_overlap",
    "check_result",
    "overlap_status",
    "overlaps_itself",
    "run_inplace",
    "write_aliased",
    "written",
]


def _numpy_write(kernel: object, out: NDArray[Any]) -> None:
    """:data:`write_aliased` of core alone: no write of its own (numpy's, the caller's)."""
    return None


write_aliased: Callable[[Any, NDArray[Any]], Callable[[NDArray[Any]], None] | None]
write_aliased = _numpy_write
"""The write of an op's elementwise ``kernel`` into ``out`` in the order torch's CPU loop writes,
when an input shares ``out``'s memory (which the overlap checks let through), a seam:
``ownership.installation.install()`` fills it with :func:`ownership.ops.loop_order.write_aliased`
(the order of TensorIterator, its vector blocks and threads' parts, machine facts of the ops).
None: the caller's write, numpy's, which reads every input before it writes anything, and gives
the same values whenever nothing is read after it is written; core alone always writes so."""


def run_inplace(
    self: Tensor,
    inputs: Sequence[Tensor | None],
    recorded: bool,
    compute: Callable[[], NDArray[Any]],
    out_dtype: DType,
    name: str,
    backward: BackwardFn,
    ctx: dict[str, Any] | None = None,
    save: Callable[[OpNode], object] | None = None,
    *,
    save_result: bool = False,
    check_overlap: bool = True,
    check_args: Callable[[], None] | None = None,
    write: Callable[[NDArray[Any]], object] | None = None,
    self_edge: bool = True,
    kernel: object = None,
    keyed: Sequence[Any] = (),
) -> Tensor:
    """Write ``compute()`` into ``self`` under torch's in-place contract; return ``self``.

    ``inputs`` are the op's other operands (None for a number), ``recorded`` whether autograd
    records the op (``needs_grad`` of all operands); ``check_args`` raises the op's own argument
    errors; ``check_overlap=False`` skips the overlap checks (``fill_`` and ``zero_``, whose
    kernels torch builds without them, and ``copy_`` of a tensor into itself, which returns at
    once). ``save`` keeps what backward needs, before the write; ``save_result`` keeps ``self``
    after it.

    ``write``, when given, is the write itself, instead of ``compute()``'s value copied in:
    ``index_put_`` into an expanded tensor, whose elements share memory, writes the indexed
    elements alone (``self``'s shape and dtype are checked as they are).

    ``kernel``: the op's torch kernel, elementwise (an ``ownership.ops.loop_order.Kernel``,
    opaque to core), given so that an input sharing ``self``'s memory (which the overlap checks
    let through) is read as torch's loop reads it (:data:`write_aliased`, a seam).

    ``keyed``: the op's tensor arguments that are not among ``inputs`` (``index_put_``'s
    indices, ``masked_fill_``'s mask): as ``inputs``, they decide whether torch counts a write
    into an inference tensor's ``detach()`` inside inference mode (:func:`written`).

    ``self_edge=False``: the node has no edge to ``self``, only to ``inputs`` (torch's
    ``NotImplemented`` node of a ``self`` that does not require grad; written into a view, the
    ``CopySlices`` then keeps only the base's edge, as torch's does).
    """
    node = None
    if recorded:
        check_inplace(self)  # 1
        edges = tuple(map(gradient_edge, inputs))
        node = OpNode(name, (gradient_edge(self), *edges) if self_edge else edges, backward, ctx)
        if save is not None:
            save(node)
    if check_args is not None:
        check_args()  # 2
    if check_overlap:  # 3
        check_no_overlap(self, inputs)
    if write is None:
        value = compute()
        check_result(self, tuple(np.shape(value)), out_dtype)
        write = _copy_of(value)
    else:
        check_result(self, self._data.shape, out_dtype)
    write = write_aliased(kernel, self._data) or write
    if observers.BEFORE_WRITES:  # 4: e.g. an allow_mutation_on_saved_tensors block is open
        observers.before_write(self)
    write(self._data)
    written(self, name, (*inputs, *keyed) if keyed else inputs)
    if node is not None:  # 5
        rebase_history(self, node)
        if save_result:
            node.save("result", self, is_output=True, on_view=self._base is not None)
    return self


def written(self: Tensor, name: str, others: Sequence[Any] = ()) -> None:
    """Step 4 after the write itself: one version bump, then the write observers told (``name``:
    the op's backward node, which names the op).

    ``others``: the op's other arguments. torch's dispatcher runs the ADInplaceOrView kernel,
    which bumps, when any tensor argument carries its key: an inference tensor lacks it, so
    inside inference mode a write into an inference tensor's ``detach()`` (which has a counter)
    is counted only when a normal tensor is among the op's arguments (``copy_`` of one, an index
    tensor, a mask; fuzz program 399264)."""
    counter = self._lazy_counter  # None: not made yet (read through the property, which makes it)
    if counter is None:
        counter = self._version_counter
    if counter.inference and others and any(map(_keyed, others)):
        counter.bump_keyed()
    else:
        counter.bump()
    if observers.WRITES:
        for observe in observers.WRITES:
            observe(self, name)


def _keyed(arg: Any) -> bool:
    """Whether ``arg`` is a normal tensor (not an inference one): it carries the dispatch keys
    of autograd and ADInplaceOrView (a fresh result of no counter yet was made outside inference
    mode: inside it, an inference tensor's counter is made with it)."""
    if not is_engine_tensor(arg):
        return False
    counter = arg._lazy_counter
    return counter is None or not counter.inference


def _copy_of(value: NDArray[Any]) -> Callable[[NDArray[Any]], object]:
    """The write of a computed ``value``: copied in, cast to the written array's dtype."""
    return lambda into: np.copyto(into, value, casting="unsafe")


def check_inplace(t: Tensor) -> None:
    """torch's ``check_inplace`` for an in-place op that will be recorded, in its order."""
    base = t._base
    if base is not None:
        if t._creation_meta is not PLAIN:
            handle_view_on_rebase(t, indirect=False)
        if t.requires_grad and base.is_leaf:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
    if t.requires_grad and t.is_leaf:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def check_no_overlap(out: Tensor, inputs: Sequence[Tensor | None]) -> None:
    """torch's ``assert_no_internal_overlap`` on the written tensor, then
    ``assert_no_partial_overlap`` with each input (:func:`check_inputs_apart`)."""
    if overlaps_itself(out):
        raise RuntimeError(layout.INTERNAL_OVERLAP_MESSAGE)
    check_inputs_apart(out, inputs)


def overlaps_itself(t: Tensor) -> bool:
    """torch's ``has_internal_overlap(t) == MemOverlap::Yes``: two elements of ``t`` are one
    memory location by a 0 stride (an expanded tensor), the written tensor torch's kernels refuse,
    or, for ``masked_fill_`` and ``index_put_``, warn about. A tensor whose elements overlap
    otherwise (``as_strided``) is ``TooHard`` to torch, which writes it."""
    arr = t._data  # numpy's byte strides are 0 exactly where the element strides are
    return 0 in arr.strides and layout.has_internal_overlap(arr.shape, arr.strides)


def check_inputs_apart(out: Tensor, inputs: Sequence[Tensor | None], *, full: bool = False) -> None:
    """torch's ``assert_no_partial_overlap`` of the written tensor with each input (other than
    the written tensor itself, as ``TensorIteratorBase::compute_mem_overlaps`` skips it): no
    :func:`overlap_status` ``PARTIAL``. ``full``: torch's ``assert_no_overlap`` (``index_put_``'s
    value and indices), which refuses ``FULL`` too."""
    for src in inputs:
        # a refusal needs shared memory: numpy's bounds check first, the cheap common answer
        if src is not None and (src is not out or full) and _may_share(out._data, src._data):
            status = overlap_status(out, src)
            if status == "PARTIAL" or (full and status == "FULL"):
                raise RuntimeError(
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation."
                )


def overlap_status(a: Tensor, b: Tensor) -> str:
    """torch's ``get_overlap_status`` (``aten/src/ATen/MemoryOverlap.cpp``): ``FULL`` (the same
    tensor, or the same memory range with the same strides), ``PARTIAL`` (memory ranges that
    meet otherwise), ``NO``, or ``TOO_HARD``: torch compares only tensors that are both
    non-overlapping and dense, each taken as the range of its ``numel`` elements from its first.

    Two tensors that are not both dense are never refused, however their elements interleave
    (``x[:, 0].copy_(x[0])``): torch then writes element by element in its loop's order, which
    :mod:`ownership.ops.loop_order` follows."""
    if a is b:
        return "FULL"
    x, y = a._data, b._data
    if x.size == 0 or y.size == 0:
        return "NO"
    if not (layout.dense_array(x) and layout.dense_array(y)):
        return "TOO_HARD"
    x_begin, y_begin = layout.address(x), layout.address(y)
    x_end, y_end = x_begin + x.nbytes, y_begin + y.nbytes
    if x_begin == y_begin and x_end == y_end:
        return "FULL" if a.stride() == b.stride() else "PARTIAL"
    if x_begin < y_end and y_begin < x_end:
        return "PARTIAL"
    return "NO"


def check_result(t: Tensor, result_shape: tuple[int, ...], result_dtype: DType) -> None:
    """The result fits the written tensor: no growth by broadcasting, no narrowing cast."""
    if result_shape != t._data.shape:
        raise RuntimeError(
            f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
            f"{list(result_shape)}"
        )
    check_cast(t, result_dtype)


def check_cast(t: Tensor, result_dtype: dtypes.dtype) -> None:
    """A result of ``result_dtype`` may be written into ``t``: torch's ``canCast`` (no float
    into an integer tensor, nothing but a bool into a bool one)."""
    if result_dtype is not t.dtype and not dtypes.can_cast(result_dtype, t.dtype):
        raise RuntimeError(
            f"result type {result_dtype.short} can't be cast to the desired output type "
            f"{t.dtype.short}"
        )
