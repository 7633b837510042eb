"""The Tensor methods of torch's comparison ops beyond the operators: ``sort``, ``argsort``,
``topk``, ``isclose``, ``allclose``, and the reductions to truth values ``all`` and ``any``.

Each binds its declared signature (:class:`~ownership.core.binder.Signatures`; torch's messages) and
forwards to its op (:mod:`ownership.ops.sorting`, :mod:`ownership.ops.closeness`,
:mod:`ownership.ops.reduction`) through :data:`ops`;
:class:`~ownership.core.tensor_methods.TensorMethods` inherits them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership.core import op_registry
from ownership.core import signatures as sig

if TYPE_CHECKING:
    from ownership.core.op_table import OpTable

# the tensor type is left open here: this base class of Tensor is not imported by its module
ops: OpTable[Any] = op_registry.ops

__all__ = ["TensorComparison"]


class TensorComparison:
    """``sort``, ``argsort``, ``topk``, ``isclose``, ``allclose``, ``all``, ``any``."""

    def sort(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``(values, indices)`` ordered along ``dim``:
        ``sort(dim=-1, descending=False)`` or ``sort(*, stable, dim=-1, descending=False)``."""
        overload, a = sig.SORT.parse(args, kwargs)
        stable = a["stable"] if overload == 0 else False
        return ops.sort(self, a["dim"], a["descending"], stable)

    def argsort(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The indices of ``sort``: ``argsort(dim=-1, descending=False, *, stable=False)``."""
        a = sig.ARGSORT.parse(args, kwargs)[1]
        return ops.argsort(self, a["dim"], a["descending"], a.get("stable", False))

    def topk(self: Any, *args: Any, **kwargs: Any) -> Any:
        """The ``k`` largest (or smallest) along ``dim`` with their indices:
        ``topk(k, dim=-1, largest=True, sorted=True)``."""
        a = sig.TOPK.parse(args, kwargs)[1]
        return ops.topk(self, a["k"], a["dim"], a["largest"], a["sorted"])

    def isclose(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Elementwise ``|self - other| <= atol + rtol * |other|`` (a bool tensor):
        ``isclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)``."""
        a = sig.ISCLOSE.parse(args, kwargs)[1]
        return ops.isclose(self, a["other"], a["rtol"], a["atol"], a["equal_nan"])

    def allclose(self: Any, *args: Any, **kwargs: Any) -> bool:
        """Whether ``isclose`` holds for every element (a Python bool):
        ``allclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)``."""
        a = sig.ALLCLOSE.parse(args, kwargs)[1]
        return ops.allclose(self, a["other"], a["rtol"], a["atol"], a["equal_nan"])

    def all(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Whether every element is true (a bool tensor), over all dims or over ``dim``:
        ``all()``, ``all(dim=None, keepdim=False)`` with ``dim`` an int or a tuple of ints."""
        a = sig.ALL.parse(args, kwargs)[1]
        return ops.all(self, a.get("dim"), a.get("keepdim", False))

    def any(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Whether some element is true (a bool tensor), over all dims or over ``dim``:
        ``any()``, ``any(dim=None, keepdim=False)`` with ``dim`` an int or a tuple of ints."""
        a = sig.ANY.parse(args, kwargs)[1]
        return ops.any(self, a.get("dim"), a.get("keepdim", False))
