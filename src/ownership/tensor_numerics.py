"""The Tensor methods of torch's numeric ops added with their ops in one module each: ``repeat``
(:mod:`ownership.ops.repetition`).

Each parses torch's signature (:class:`~ownership.arguments.Parser`, torch's messages) and
forwards to its op through :data:`ops`; :class:`~ownership.tensor_methods.TensorMethods` inherits
them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership import op_registry
from ownership import signatures as sig

if TYPE_CHECKING:
    from ownership.op_table import OpTable

# the tensor type is left open here: this base class of Tensor is not imported by its module
ops: OpTable[Any] = op_registry.ops

__all__ = ["TensorNumerics"]


class TensorNumerics:
    """``repeat``."""

    def repeat(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The tensor tiled along each dim, a new tensor: ``repeat(*repeats)``."""
        return ops.repeat(self, sig.REPEAT.parse(args, kwargs)[1]["repeats"])
