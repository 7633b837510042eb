"""The Tensor's view properties ``T`` and ``mT``: results share storage and version counter with
the tensor (``_base``).

The view methods (``view``, ``reshape``, ``transpose``, ``permute``, ``expand``, ``squeeze``,
``select``...) bind their arguments by torch's signatures and call their op: they are declared
with their ops (:mod:`ownership.ops.methods`); a property takes no argument to bind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership.core import op_registry

if TYPE_CHECKING:
    from ownership.core.op_table import CoreOps
    from ownership.core.tensor import Tensor

ops: CoreOps[Tensor] = op_registry.ops


class TensorViews:
    """The view properties of :class:`~ownership.core.tensor.Tensor` (see :mod:`ownership.ops.views`)."""

    __slots__ = ()

    @property
    def T(self: Any) -> Tensor:
        """All dimensions reversed (a view)."""
        return ops.T(self)

    @property
    def mT(self: Any) -> Tensor:
        """The last two dimensions swapped (a view)."""
        return ops.mT(self)
