"""Leaving the engine: a tensor as a Python number, nested lists, a numpy array, or an iterator.

``float()``, ``int()``, ``bool()`` and ``item()`` need one element; ``numpy()`` shares memory
and refuses a tensor that requires grad; ``float()`` of a tensor that requires grad warns once
per process, as torch 2.13 does (``int()``, ``bool()`` and ``item()`` do not warn).

None of the unit's rules needs them, so they are the ops layer's, not core's: each is a Tensor
method written by hand, declared with ``method=`` in :mod:`ownership.ops.methods` and set on the
Tensor by :func:`ownership.core.surface.install`, as the other written methods are. They are
written in a class (:class:`TensorConversion`, never a base of the Tensor) so that each keeps
the signature torch's has, ``self`` unannotated.

>>> import ownership
>>> x = ownership.tensor([2.5])
>>> float(x), int(x), bool(x), x.item(), x.tolist()
(2.5, 2, True, 2.5, [2.5])
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from numbers import Number
from typing import TYPE_CHECKING, Any, cast

from numpy.typing import NDArray

from ownership.core import grad_mode, op_registry
from ownership.core.dtypes import dtype as DType
from ownership.core.tensor import Tensor
from ownership.core.warn_once import outside_level, warn_once
from ownership.ops.op_table import OpTable

ops: OpTable[Tensor] = op_registry.ops

SCALAR_CONVERSION_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)


class TensorConversion:
    """The conversions of :class:`~ownership.core.tensor.Tensor` to Python and numpy values:
    the methods, each declared in :mod:`ownership.ops.methods` (:data:`METHODS`)."""

    __slots__ = ()
    _data: NDArray[Any]
    dtype: DType

    if TYPE_CHECKING:

        @property
        def requires_grad(self) -> builtins.bool: ...

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.item()  # numpy's own: the one element as a Python number

    def tolist(self) -> Any:
        """Nested Python lists (a number for a 0-d tensor)."""
        return self._data.tolist()

    def numpy(self, *, force: builtins.bool = False) -> NDArray[Any]:
        """A numpy array sharing memory with this tensor (refused, unless ``force``, when the
        tensor requires grad and grad mode is on: under ``no_grad`` torch allows it)."""
        if not force and self.requires_grad and grad_mode.is_grad_enabled():
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        """What numpy sees: :meth:`numpy` (so refused as it is), cast to ``dtype`` if given."""
        arr = TensorConversion.numpy(self)
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __array_wrap__(self, array: NDArray[Any]) -> Tensor:
        """A numpy result over this tensor made a tensor again, as torch's (``x + a`` with a numpy
        array ``a``, ``x @ a``, ``numpy.sin(x)``): a bool array becomes uint8, which torch has
        and the engine refuses (torch's TypeError for a type it lacks). The signature is torch's
        too, so numpy 2 gives the same DeprecationWarning about it."""
        if array.dtype == bool:
            array = array.astype("uint8")
        return type(self)._wrap(array)  # type: ignore[attr-defined, no-any-return]

    def __float__(self) -> builtins.float:
        """The value as a Python float; warns (once per process, like torch) when grad is tracked.

        Only ``float()`` warns in torch 2.13, not ``int()``, ``bool()`` or ``item()``, and only
        with grad mode on; the warning is torch's ``TORCH_WARN_ONCE``, so a process sees it once.
        """
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self.requires_grad and grad_mode.is_grad_enabled():  # once, at the user's line
            warn_once(SCALAR_CONVERSION_WARNING, stacklevel=outside_level())
        return float(self._data.item())

    def __int__(self) -> builtins.int:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self._data.item())

    def __bool__(self) -> builtins.bool:
        if self._data.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.item())

    def __index__(self) -> builtins.int:
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.item())

    def __len__(self: Any) -> builtins.int:
        if self.dim() == 0:  # torch's Python method: its mode sees ``dim``
            raise TypeError("len() of a 0-d tensor")
        return int(self._data.shape[0])

    def __iter__(self: Any) -> Iterator[Tensor]:
        if self.dim() == 0:  # torch's Python method: its mode sees ``dim``, then ``unbind``
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element: Any, /) -> builtins.bool:
        """Whether some element of ``self`` equals ``element`` (a tensor or a number, broadcast
        against ``self``), as torch's ``bool((element == self).any().item())``."""
        if not isinstance(element, (Tensor, Number)):
            raise RuntimeError(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        equal = cast("Tensor", element == self)
        return builtins.bool(equal.any()._data)


METHODS = (
    TensorConversion.item,
    TensorConversion.tolist,
    TensorConversion.numpy,
    TensorConversion.__array__,
    TensorConversion.__array_wrap__,
    TensorConversion.__float__,
    TensorConversion.__int__,
    TensorConversion.__bool__,
    TensorConversion.__index__,
    TensorConversion.__len__,
    TensorConversion.__iter__,
    TensorConversion.__contains__,
)
"""The methods a tensor leaves the engine by, in the order :class:`TensorConversion` defines them."""
