"""The in-place contract: what a write into a tensor checks, does, and leaves behind.

:func:`run_inplace` makes torch's checks in torch's order (its numbered steps); the in-place view
ops (``ownership/ops/inplace_views.py``) and ``ctx.mark_dirty`` make the same autograd check with
:func:`check_inplace`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

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
    "Write",
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


def _numpy_write(kernel: object, reads: Sequence[Any], out: NDArray[Any]) -> None:
    return None


write_aliased: Callable[[Any, Sequence[Any], NDArray[Any]], Callable[[NDArray[Any]], None] | None]
write_aliased = _numpy_write
"""A seam: the write into ``out`` of the elementwise kernel that ``kernel()`` makes, reading
``reads``, in torch's CPU loop order when one of them shares ``out``'s memory
(:func:`ownership.ops.loop_order.write_aliased`, by ``ownership.installation.install()``).
None: numpy's write, which reads every input first."""


class Write(NamedTuple):
    """A value ``compute()`` makes in the written array itself: its ``shape``, checked before
    anything is written, and ``into``, which writes it into an array of that shape (a value
    made apart is copied in by a Write into ``self``'s array, which ``shape`` broadcasts to)."""

    shape: tuple[int, ...]
    into: Callable[[NDArray[Any]], object]


def run_inplace(
    self: Tensor,
    inputs: Sequence[Tensor | None],
    recorded: bool,
    compute: Callable[[], NDArray[Any] | Write],
    out_dtype: DType,
    name: str,
    backward: BackwardFn,
    ctx: dict[str, Any] | None = None,
    save: Callable[[OpNode], object] | None = None,
    *,
    save_result: bool = False,
    check_overlap: bool = True,
    check_args: Callable[[], None] | None = None,
    self_edge: bool = True,
    kernel: Callable[[], object] | None = None,
    reads: Sequence[Any] = (),
    keyed: Sequence[Any] = (),
) -> Tensor:
    """Write ``compute()`` into ``self`` under torch's in-place contract; return ``self``.

    1. **Autograd**, only when ``recorded`` (grad mode on, an operand requires grad):
       :func:`check_inplace`, then the node's edges (a stale input view's rebase error) and
       ``save`` (a saved inference tensor is refused, a pack hook runs).
    2. **The op's own arguments** (``check_args``: ``clamp_()`` without bounds...), in its kernel.
    3. **The kernel's checks**, in ``TensorIteratorBase::build``'s order, in any grad mode: memory
       overlap (:func:`check_no_overlap`; skipped by ``check_overlap=False``), then shape and
       dtype (:func:`check_result`).
    4. **The write** (``compute()``'s value copied in, or made in ``self`` by its :class:`Write`;
       an aliased input among ``reads``, or elements of ``self`` that share memory, read and
       written in the loop order of the kernel ``kernel()`` makes: :data:`write_aliased`),
       after the before-write observers (:func:`~ownership.core.observers.before_write`), then
       **one version bump** (:func:`written`; ``keyed``: tensor arguments not in ``inputs``), in
       any grad mode.
    5. **The new history**, if recorded (``CopySlices`` on a written view's base:
       :func:`~ownership.core.autograd.view_history.rebase_history`); ``save_result`` saves
       ``self``; ``self_edge=False``: no edge to ``self`` (torch's ``NotImplemented`` node).
    """
    node = None
    if recorded:
        check_inplace(self)  # 1
        edges = tuple(map(gradient_edge, inputs))
        dts = tuple(None if t is None else t.dtype for t in inputs)  # gradients cast to these
        if self_edge:
            edges, dts = (gradient_edge(self), *edges), (self.dtype, *dts)
        node = OpNode(name, edges, backward, ctx, 1, dts)
        if save is not None:
            save(node)
    if check_args is not None:
        check_args()  # 2
    if check_overlap:  # 3
        check_no_overlap(self, inputs)
    value = compute()
    if not isinstance(value, Write):  # a value made apart, copied in
        value = Write(np.shape(value), _copy_of(value))
    check_result(self, value.shape, out_dtype)
    write = write_aliased(kernel, reads, self._data) or value.into
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
    """Step 4 after the write: one version bump, then the write observers told (``name``: the
    op's backward node). Inside inference mode, a write into an inference tensor's ``detach()``
    is counted only when a normal tensor is among ``others`` (torch's ADInplaceOrView key)."""
    counter = self._lazy_counter  # None: not made yet (the property makes it)
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
    """Whether ``arg`` is a normal tensor, not an inference one."""
    if not is_engine_tensor(arg):
        return False
    counter = arg._lazy_counter
    return counter is None or not counter.inference


def _copy_of(value: NDArray[Any]) -> Callable[[NDArray[Any]], object]:
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
    """torch's ``assert_no_internal_overlap`` on ``out``, then :func:`check_inputs_apart`."""
    if overlaps_itself(out):
        raise RuntimeError(layout.INTERNAL_OVERLAP_MESSAGE)
    check_inputs_apart(out, inputs)


def overlaps_itself(t: Tensor) -> bool:
    """torch's ``has_internal_overlap(t) == MemOverlap::Yes``: two elements of ``t`` share memory
    by a 0 stride (an expanded tensor); other overlaps (``as_strided``) are ``TooHard``."""
    arr = t._data
    return 0 in arr.strides and layout.has_internal_overlap(arr.shape, arr.strides)


def check_inputs_apart(out: Tensor, inputs: Sequence[Tensor | None], *, full: bool = False) -> None:
    """torch's ``assert_no_partial_overlap`` of ``out`` with each input other than itself;
    ``full``: ``assert_no_overlap``, which refuses a ``FULL`` overlap too."""
    for src in inputs:
        if src is not None and (src is not out or full) and _may_share(out._data, src._data):
            status = overlap_status(out, src)
            if status == "PARTIAL" or (full and status == "FULL"):
                raise RuntimeError(
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation."
                )


def overlap_status(a: Tensor, b: Tensor) -> str:
    """torch's ``get_overlap_status``: ``FULL``, ``PARTIAL``, ``NO``, or ``TOO_HARD`` (not both
    dense: never refused; :mod:`ownership.ops.loop_order` writes as torch's loop does)."""
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
        return "FULL" if a._stride() == b._stride() else "PARTIAL"
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
    """A result of ``result_dtype`` may be written into ``t`` (torch's ``canCast``)."""
    if result_dtype is not t.dtype and not dtypes.can_cast(result_dtype, t.dtype):
        raise RuntimeError(
            f"result type {result_dtype.short} can't be cast to the desired output type "
            f"{t.dtype.short}"
        )
