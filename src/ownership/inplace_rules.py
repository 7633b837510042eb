"""The rules for writing into a tensor in place, and how views follow their base's history.

Torch's check_inplace (leaf, view of a leaf, multi-output view, view made under no_grad), the
write checks every in-place op makes in any grad mode (no growth by broadcasting, no narrowing
cast, no overlapping memory), the history rebase (``CopySlices`` on the base of a written view)
and the lazy refresh of a view's ``grad_fn`` after its storage changed (``AsStridedBackward0``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ownership import dtypes, layout
from ownership.autograd.node import Node, gradient_edge
from ownership.autograd.saved import forward_op_name
from ownership.autograd.view_nodes import AsStridedBackward0, CopySlices
from ownership.dtypes import dtype as DType

if TYPE_CHECKING:
    from ownership._tensor import Tensor

# creation meta of views (torch's CreationMeta)
DEFAULT = "DEFAULT"
NO_GRAD_MODE = "NO_GRAD_MODE"
INFERENCE_MODE = "INFERENCE_MODE"
MULTI_OUTPUT = "MULTI_OUTPUT_NODE"
IN_CUSTOM_FUNCTION = "IN_CUSTOM_FUNCTION"


def refresh_view_grad_fn(t: Tensor) -> None:
    """After the storage changed, a differentiable view's grad_fn becomes a window on its base.

    Views that may not be rebased (multi-output, made under no_grad) refuse here, when they
    are next used, with torch's "its base or another view of its base" messages.
    """
    base = t._base
    assert base is not None
    if t._grad_fn is None and not base._requires_grad:
        t._view_version = t._storage.counter.value
        return
    if t._creation_meta != DEFAULT:
        raise RuntimeError(view_rebase_error(t, indirect=True))
    t._view_version = t._storage.counter.value
    t._set_grad_fn(
        AsStridedBackward0(
            gradient_edge(base),
            base._geometry(),
            t._geometry(),
            int(t._storage.buffer.size),
        )
    )


def view_rebase_error(t: Tensor, indirect: bool) -> str:
    """torch's message for rebasing a view that may not be rebased (handle_view_on_rebase).

    ``indirect`` is a write through the base or another view (found when the view is next used)
    rather than through this view itself.
    """
    fn = t._grad_fn
    meta = t._creation_meta
    modified = "its base or another view of its base has been" if indirect else "is being"
    block = "inference_mode" if meta == INFERENCE_MODE else "no_grad"
    if meta == IN_CUSTOM_FUNCTION and fn is not None:
        msg = (
            f"Output {t._output_nr} of {forward_op_name(fn.name())} is a view and {modified} modified "
            "inplace."
        )
    elif meta in (INFERENCE_MODE, NO_GRAD_MODE, IN_CUSTOM_FUNCTION) or fn is None:
        if fn is not None:
            prefix = (
                f"Output {t._output_nr} of {forward_op_name(fn.name())} is a view of a view which was "
                "created in"
            )
        else:
            prefix = "A view was created in"
        if meta == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = (
            f"Output {t._output_nr} of {forward_op_name(fn.name())} is a view and {modified} modified "
            "inplace."
        )
    if meta == IN_CUSTOM_FUNCTION:
        msg += (
            " This view was created inside a custom Function (or because an input was returned "
            "as-is) and the autograd logic to handle view+inplace would override the custom "
            "backward associated with the custom Function, leading to incorrect gradients. This "
            "behavior is forbidden. You can fix this by cloning the output of the custom Function."
        )
    elif meta == MULTI_OUTPUT:
        msg += (
            " This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the inplace "
            "operation by an out-of-place one."
        )
    else:
        msg += (
            " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the "
            f"{block} block (if you don't want the inplace to be tracked) or both outside (if you "
            "want the inplace to be tracked)."
        )
    return msg


def check_inplace(t: Tensor) -> None:
    """torch's check_inplace, for an in-place op that will be recorded."""
    base = t._base
    if base is not None:
        if t._creation_meta != DEFAULT:
            raise RuntimeError(view_rebase_error(t, indirect=False))
        if t.requires_grad and base.is_leaf:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
    if t.requires_grad and t.is_leaf:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def check_writable(
    t: Tensor, result_shape: tuple[int, ...], result_dtype: DType, check_overlap: bool = True
) -> None:
    """Errors an in-place write raises in any grad mode: growth, overlap, narrowing cast."""
    if result_shape != t._data.shape:
        raise RuntimeError(
            f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
            f"{list(result_shape)}"
        )
    if not dtypes.can_cast(result_dtype, t.dtype):
        raise RuntimeError(
            f"result type {result_dtype.short} can't be cast to the desired output type "
            f"{t.dtype.short}"
        )
    if check_overlap and layout.has_internal_overlap(t._data.shape, t.stride()):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def set_history_inplace(t: Tensor, node: Node) -> None:
    """After a recorded in-place op: this tensor's history becomes ``node`` (via CopySlices for views)."""
    base = t._base
    if base is None:
        t._set_grad_fn(node)
        return
    size = int(t._storage.buffer.size)
    base._set_grad_fn(CopySlices(gradient_edge(base), node, base._geometry(), t._geometry(), size))
    t._requires_grad = True
    t._view_version = -1
    t._refresh_view_grad_fn()
