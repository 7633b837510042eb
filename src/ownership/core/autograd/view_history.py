"""How a view's history follows its base (torch's ``variable.cpp``): :class:`CreationMeta`, how
a view was made; :func:`rebase_history` after a recorded in-place op (a view's base gets
:class:`~ownership.core.autograd.view_nodes.CopySlices`); :func:`refresh_view_grad_fn`, a view's
``grad_fn`` rebuilt when next read. The checks before a rebase: :mod:`ownership.core.inplace_rules`.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from ownership.core.autograd.node import Node, gradient_edge
from ownership.core.autograd.saved import forward_op_name
from ownership.core.autograd.view_nodes import AsStridedBackward0, CopySlices

if TYPE_CHECKING:
    from ownership.core.tensor import Tensor


class CreationMeta(enum.Enum):
    """How a view was made (torch's ``CreationMeta``): only a DEFAULT view may be rebased."""

    DEFAULT = enum.auto()
    IN_CUSTOM_FUNCTION = enum.auto()
    MULTI_OUTPUT_NODE = enum.auto()
    NO_GRAD_MODE = enum.auto()
    INFERENCE_MODE = enum.auto()


PLAIN = CreationMeta.DEFAULT
"""``CreationMeta.DEFAULT``."""


def propagate_creation_meta(inherited: CreationMeta, new: CreationMeta) -> CreationMeta:
    """torch's ``propagate_creation_meta``: the meta of a view of a view (``DEFAULT`` keeps the
    inherited one; ``INFERENCE_MODE`` is kept)."""
    if new is PLAIN or inherited is CreationMeta.INFERENCE_MODE:
        return inherited
    return new


def handle_view_on_rebase(t: Tensor, indirect: bool) -> None:
    """Raise torch's error for rebasing a view whose :class:`CreationMeta` forbids it
    (``indirect``: the write went through the base or another view)."""
    fn = t._grad_fn
    meta = t._creation_meta
    modified = "its base or another view of its base has been" if indirect else "is being"
    block = "inference_mode" if meta is CreationMeta.INFERENCE_MODE else "no_grad"
    output = f"Output {t._output_nr} of {forward_op_name(fn.name())}" if fn is not None else ""
    if fn is not None and meta not in (CreationMeta.INFERENCE_MODE, CreationMeta.NO_GRAD_MODE):
        msg = f"{output} is a view and {modified} modified inplace."
    else:
        prefix = f"{output} is a view of a view which was created in" if output else ""
        prefix = prefix or "A view was created in"
        if meta is CreationMeta.INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    if meta is CreationMeta.IN_CUSTOM_FUNCTION:
        msg += (
            " This view was created inside a custom Function (or because an input was returned "
            "as-is) and the autograd logic to handle view+inplace would override the custom "
            "backward associated with the custom Function, leading to incorrect gradients. This "
            "behavior is forbidden. You can fix this by cloning the output of the custom Function."
        )
    elif meta is CreationMeta.MULTI_OUTPUT_NODE:
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
    raise RuntimeError(msg)


def rebase_history(t: Tensor, node: Node) -> None:
    """After a recorded in-place op, ``t``'s history becomes output 0 of ``node`` (a view's:
    its base's ``grad_fn`` becomes ``CopySlices`` around ``node``, the view's rebuilt at once)."""
    base = t._base
    if base is None:
        t._set_grad_fn(node)
        return
    base._set_grad_fn(CopySlices(gradient_edge(base), node, base._geometry(), t._geometry()))
    t._requires_grad = True
    t._view_version = -1
    refresh_view_grad_fn(t)


def refresh_view_grad_fn(t: Tensor) -> None:
    """After the counter moved, a differentiable view's ``grad_fn`` becomes a window on its base
    (views that may not be rebased refuse here, with torch's "its base or another view" errors)."""
    base = t._base
    assert base is not None
    if t._grad_fn is None and not base._requires_grad:
        # nothing to refresh yet: a base that later requires grad gives it its window then
        return
    if t._creation_meta is not PLAIN:
        handle_view_on_rebase(t, indirect=True)
    t._view_version = t._version_counter.value
    t._set_grad_fn(AsStridedBackward0(gradient_edge(base), base._geometry(), t._geometry()))
