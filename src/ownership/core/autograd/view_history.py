"""How a view's history follows its base: creation meta, the rebase, the lazy refresh.

A differentiable view shares its base's memory and version counter, so a write through either
changes the other. Autograd follows with three pieces, each torch's (``torch/csrc/autograd/
variable.cpp``):

- :class:`CreationMeta` records how a view was made; a view made under ``no_grad``, in
  inference mode, inside a custom Function or by a multi-output op may not have its history
  rewritten, and :func:`handle_view_on_rebase` raises torch's message for it;
- :func:`rebase_history`: after a recorded in-place op, a non-view's ``grad_fn`` becomes the op's
  node; a view's base gets :class:`~ownership.core.autograd.view_nodes.CopySlices` ("the old base with
  this region replaced by the op's result") and the view becomes a window on that;
- :func:`refresh_view_grad_fn`: a view whose counter moved since its ``grad_fn`` was last set
  gets, when next read, an :class:`~ownership.core.autograd.view_nodes.AsStridedBackward0` on its
  base's current history (torch's ``VariableHooks::grad_fn``).

The checks and the write that come before a rebase are the in-place contract,
:mod:`ownership.core.inplace_rules`.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from ownership.core.autograd.node import Node, gradient_edge
from ownership.core.autograd.saved import forward_op_name
from ownership.core.autograd.view_nodes import AsStridedBackward0, CopySlices

if TYPE_CHECKING:
    from ownership.core.tensor import Tensor

__all__ = ["CreationMeta", "handle_view_on_rebase", "rebase_history", "refresh_view_grad_fn"]


class CreationMeta(enum.Enum):
    """How a view was made (torch's ``CreationMeta``): only a DEFAULT view may be rebased."""

    DEFAULT = enum.auto()
    IN_CUSTOM_FUNCTION = enum.auto()
    MULTI_OUTPUT_NODE = enum.auto()
    NO_GRAD_MODE = enum.auto()
    INFERENCE_MODE = enum.auto()


PLAIN = CreationMeta.DEFAULT
"""``CreationMeta.DEFAULT``, looked up once: reading an enum member through its class costs about
0.1 us, and every new tensor and every in-place op on a view reads this one."""


def propagate_creation_meta(inherited: CreationMeta, new: CreationMeta) -> CreationMeta:
    """torch's ``propagate_creation_meta``: the meta of a view of a view, from the meta it
    inherits from the view it was taken of (``inherited``) and the one its making gives
    (``new``): ``DEFAULT`` keeps the inherited one, and a view of a view made in inference mode
    stays ``INFERENCE_MODE`` (its error wins over a no_grad mode's or multiple outputs')."""
    if new is PLAIN or inherited is CreationMeta.INFERENCE_MODE:
        return inherited
    return new


_REFUSED_IN_A_MODE = (
    CreationMeta.INFERENCE_MODE,
    CreationMeta.NO_GRAD_MODE,
    CreationMeta.IN_CUSTOM_FUNCTION,
)


def handle_view_on_rebase(t: Tensor, indirect: bool) -> None:
    """Raise torch's error for rebasing a view whose :class:`CreationMeta` forbids it.

    ``indirect``: the write went through the base or another view (found when this view is
    next used) rather than through this view itself.
    """
    fn = t._grad_fn
    meta = t._creation_meta
    modified = "its base or another view of its base has been" if indirect else "is being"
    block = "inference_mode" if meta is CreationMeta.INFERENCE_MODE else "no_grad"
    if meta is CreationMeta.IN_CUSTOM_FUNCTION and fn is not None:
        msg = (
            f"Output {t._output_nr} of {forward_op_name(fn.name())} is a view and {modified} modified "
            "inplace."
        )
    elif meta in _REFUSED_IN_A_MODE or fn is None:
        if fn is not None:
            prefix = (
                f"Output {t._output_nr} of {forward_op_name(fn.name())} is a view of a view which was "
                "created in"
            )
        else:
            prefix = "A view was created in"
        if meta is CreationMeta.INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = (
            f"Output {t._output_nr} of {forward_op_name(fn.name())} is a view and {modified} modified "
            "inplace."
        )
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
    """After a recorded in-place op, ``t``'s history becomes output 0 of ``node``.

    A view cannot own the history of memory it shares: its base's ``grad_fn`` becomes
    :class:`~ownership.core.autograd.view_nodes.CopySlices` around ``node`` and the view's is rebuilt from the base's at once.
    """
    base = t._base
    if base is None:
        t._set_grad_fn(node)
        return
    base._set_grad_fn(CopySlices(gradient_edge(base), node, base._geometry(), t._geometry()))
    t._requires_grad = True
    t._view_version = -1
    refresh_view_grad_fn(t)


def refresh_view_grad_fn(t: Tensor) -> None:
    """After the counter moved, a differentiable view's ``grad_fn`` becomes a window on its base.

    Views that may not be rebased (multi-output, made under no_grad...) refuse here, when they
    are next used, with torch's "its base or another view of its base" messages.
    """
    base = t._base
    assert base is not None
    if t._grad_fn is None and not base._requires_grad:
        # nothing to refresh yet, and the view stays stale: a base that later requires grad
        # gives it its window then (torch sets the view's version only when it makes a node)
        return
    if t._creation_meta is not PLAIN:
        handle_view_on_rebase(t, indirect=True)
    t._view_version = t._version_counter.value
    t._set_grad_fn(AsStridedBackward0(gradient_edge(base), base._geometry(), t._geometry()))
