"""The Tensor methods that pick or reduce to chosen elements: ``gather``, ``index_select``,
``flip`` (:mod:`ownership.ops.selection`), ``amax``, ``amin`` and ``logsumexp``
(:mod:`ownership.ops.extreme_values`), ``tril`` and ``triu`` and their in-place forms
(:mod:`ownership.ops.triangles`).

Each binds its declared signature (:class:`~ownership.core.binder.Signatures`; torch's messages) and
forwards to its op through :data:`ops`; :class:`~ownership.core.tensor_methods.TensorMethods` inherits
them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership.core import op_registry
from ownership.core import signatures as sig

if TYPE_CHECKING:
    from ownership.core.op_table import OpTable

# the tensor type is left open here: this base class of Tensor is not imported by its module
ops: OpTable[Any] = op_registry.ops

__all__ = ["TensorSelection"]


class TensorSelection:
    """``gather``, ``index_select``, ``flip``, ``amax``, ``amin``, ``logsumexp``, ``tril``,
    ``triu``, ``tril_``, ``triu_``."""

    def gather(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``self`` read at ``index`` along ``dim``: ``gather(dim, index, *, sparse_grad=False)``."""
        a = sig.GATHER.parse(args, kwargs)[1]
        return ops.gather(self, a["dim"], a["index"], a["sparse_grad"])

    def index_select(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The slices along ``dim`` at a vector of indices: ``index_select(dim, index)``."""
        a = sig.INDEX_SELECT.parse(args, kwargs)[1]
        return ops.index_select(self, a["dim"], a["index"])

    def flip(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The elements in reverse order along each of ``dims``, a new tensor: ``flip(*dims)``."""
        return ops.flip(self, sig.FLIP.parse(args, kwargs)[1]["dims"])

    def amax(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The largest value over ``dim`` (all dims by default): ``amax(dim=[], keepdim=False)``."""
        a = sig.AMAX.parse(args, kwargs)[1]
        return ops.amax(self, a["dim"], a["keepdim"])

    def amin(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The smallest value over ``dim`` (all dims by default): ``amin(dim=[], keepdim=False)``."""
        a = sig.AMIN.parse(args, kwargs)[1]
        return ops.amin(self, a["dim"], a["keepdim"])

    def logsumexp(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``log(sum(exp(self), dim))`` without overflow: ``logsumexp(dim, keepdim=False)``."""
        a = sig.LOGSUMEXP.parse(args, kwargs)[1]
        return ops.logsumexp(self, a["dim"], a["keepdim"])

    def tril(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The lower triangle of the last two dims, zeros above: ``tril(diagonal=0)``."""
        return ops.tril(self, sig.TRIL.parse(args, kwargs)[1]["diagonal"])

    def triu(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The upper triangle of the last two dims, zeros below: ``triu(diagonal=0)``."""
        return ops.triu(self, sig.TRIU.parse(args, kwargs)[1]["diagonal"])

    def tril_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``tril`` in place: ``tril_(diagonal=0)``."""
        return ops.tril_(self, sig.TRIL_.parse(args, kwargs)[1]["diagonal"])

    def triu_(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``triu`` in place: ``triu_(diagonal=0)``."""
        return ops.triu_(self, sig.TRIU_.parse(args, kwargs)[1]["diagonal"])
