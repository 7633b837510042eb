"""Converting a module's tensors: ``to``, ``float``, ``double``, ``type`` and ``cpu``.

Every conversion goes through one walk, ``_apply(fn)``: children first, then each parameter
(and its gradient), then each buffer. A parameter keeps its identity, since only its ``.data``
is replaced, so an optimizer built before the conversion still holds it; a buffer is replaced
by the converted tensor. ``to``, ``float`` and ``double`` convert floating-point tensors only;
``type`` converts every tensor, integer buffers included.

>>> import ownership
>>> bn = ownership.nn.BatchNorm1d(2)
>>> weight = bn.weight
>>> bn.double().weight is weight, bn.weight.dtype, bn.num_batches_tracked.dtype
(True, torch.float64, torch.int64)
>>> bn.type("torch.FloatTensor").num_batches_tracked.dtype
torch.float32
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from ownership.core import dtypes
from ownership.core.dtypes import DTYPES, missing
from ownership.core.grad_mode import no_grad
from ownership.core.tensor import Tensor
from ownership.ops.copying import to_arguments

__all__ = ["ModuleConversion", "legacy_type"]


def legacy_type(dst_type: Any) -> dtypes.dtype:
    """The dtype ``dst_type`` names for ``Tensor.type``: a dtype, or a type name such as
    ``'torch.DoubleTensor'`` (``'torch.Tensor'``: the default dtype).

    Anything else is refused as torch refuses it: a string that names no tensor type
    (``ValueError``), a value that is not a dtype or a string (``TypeError``). A tensor type
    torch has but the engine lacks (``'torch.HalfTensor'``) is the engine's
    ``NotImplementedError`` naming it (``ownership.scope``).
    """
    if isinstance(dst_type, dtypes.dtype):
        return dst_type
    if not isinstance(dst_type, str):
        raise TypeError("dtype must be a type, str, or dtype object")
    if dst_type == "torch.Tensor":
        return dtypes.get_default_dtype()
    for d in dtypes.ALL:
        if dst_type == f"torch.{d.legacy}":
            return d
    if dst_type.startswith("torch.") and dst_type.endswith("Tensor"):
        raise missing(f"the tensor type {dst_type}", f"the dtypes {DTYPES}")
    raise ValueError(f"invalid type: '{dst_type}'")


class ModuleConversion:
    """The conversions of :class:`~ownership.nn.Module` (a base class of it)."""

    _parameters: dict[str, Any]
    _buffers: dict[str, Tensor | None]

    def _apply(self: Any, fn: Callable[[Tensor], Tensor]) -> Any:
        """Apply ``fn`` to every parameter, gradient and buffer, children first (torch's rule).

        A parameter keeps its identity (its ``.data`` is replaced), so an optimizer built before
        the conversion still holds it; a buffer is replaced. Plain tensor attributes are not
        converted: the module does not own them.
        """
        for child in self.children():
            child._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Self:
        """Convert floating-point parameters and buffers to a dtype (integer ones stay as they
        are) and, with ``memory_format=``, lay out the 4-d and 5-d ones in it.

        Reads the arguments as ``Tensor.to`` does (``to(dtype)``, ``to("cpu")``,
        ``to("cpu", dtype)``, ``to(tensor)``, ``device=``, ``dtype=``, ``non_blocking=``,
        ``memory_format=``: ``ownership.ops.copying.to_arguments``), but refuses any ``copy``
        argument and a dtype that is not floating point, as ``torch.nn.Module.to`` does.
        """
        device, dtype, non_blocking, _, fmt, copy_given = to_arguments(args, kwargs)
        if copy_given:
            raise RuntimeError(".to() does not accept copy argument")
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t: Tensor) -> Tensor:
            kept = dtype if t.is_floating_point() else None
            if fmt is not None and t.dim() in (4, 5):
                return t.to(device, kept, non_blocking, memory_format=fmt)
            return t.to(device, kept, non_blocking)

        converted: Self = self._apply(convert)
        return converted

    def type(self, dst_type: dtypes.dtype | str) -> Self:
        """Convert every parameter and buffer, integer ones included, to ``dst_type``.

        ``dst_type`` is a dtype or a tensor type name (``'torch.DoubleTensor'``); see
        ``legacy_type``. Converting parameters to an integer dtype fails on the first one
        (a tensor that requires grad must be floating point), after the children before it
        were converted, as in torch.
        """
        dtype = legacy_type(dst_type)
        converted: Self = self._apply(lambda t: t.to(dtype))
        return converted

    def cpu(self) -> Self:
        """Every parameter and buffer on the CPU, where they already are: the module unchanged."""
        converted: Self = self._apply(lambda t: t.cpu())
        return converted

    def float(self) -> Self:
        """Convert floating-point parameters and buffers to float32."""
        return self.to(dtypes.float32)

    def double(self) -> Self:
        """Convert floating-point parameters and buffers to float64."""
        return self.to(dtypes.float64)
