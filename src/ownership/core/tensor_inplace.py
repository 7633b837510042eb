"""Tensor in-place methods (``add_``, ``mul_``, ``zero_``, ``sigmoid_``...): each bumps the version once.

The rules they follow (leaves, views, saved tensors) are in :mod:`ownership.ops.inplace`.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from ownership.core import op_registry
from ownership.core import signatures as sig
from ownership.core.argument_values import no_arguments, tensor_arg

if TYPE_CHECKING:
    from ownership.core.op_table import OpTable
    from ownership.core.tensor import Tensor

ops: OpTable[Tensor] = op_registry.ops


class TensorInplace:
    """The in-place methods of :class:`~ownership.core.tensor.Tensor`."""

    __slots__ = ()

    def add_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """In place ``self += alpha * other``; bumps the version once."""
        if len(args) == 1 and isinstance(args[0], TensorInplace):  # a tensor: bound as given
            if not kwargs:
                return ops.add_(self, args[0], alpha=1)
            if len(kwargs) == 1 and type(kwargs.get("alpha")) is float:
                return ops.add_(self, args[0], alpha=kwargs["alpha"])
        a = sig.ADD_.parse(args, kwargs)[1]
        return ops.add_(self, a["other"], alpha=a["alpha"])

    def sub_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """In place ``self -= alpha * other``."""
        a = sig.SUB_.parse(args, kwargs)[1]
        return ops.sub_(self, a["other"], alpha=a["alpha"])

    def mul_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """In place ``self *= other``."""
        return ops.mul_(self, sig.MUL_.parse(args, kwargs)[1]["other"])

    def div_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """In place ``self /= other``; ``div_(other, rounding_mode=...)`` rounds."""
        overload, a = sig.DIV_.parse(args, kwargs)
        if overload:
            return ops.div_rounded_(self, a["other"], a["rounding_mode"])
        return ops.div_(self, a["other"])

    def pow_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """In place ``self **= exponent``."""
        return ops.pow_(self, sig.POW_.parse(args, kwargs)[1]["exponent"])

    def zero_(self: Any, *args: Any) -> Tensor:
        """Fill with zeros in place."""
        if args:
            no_arguments("zero_", args)
        return ops.zero_(self)

    def fill_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Fill with ``value`` in place."""
        return ops.fill_(self, sig.FILL_.parse(args, kwargs)[1]["value"])

    def copy_(self: Any, src: Any) -> Tensor:
        """Copy the tensor ``src`` (broadcastable) into self; a numpy array or a torch tensor is
        refused, as torch refuses a numpy array."""
        tensor_arg("copy_", src, "other")
        return ops.copy_(self, src)

    def masked_fill_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Write ``value`` where ``mask`` is True: ``masked_fill_(mask, value)``."""
        a = sig.MASKED_FILL_.parse(args, kwargs)[1]
        return ops.masked_fill_(self, a["mask"], a["value"])

    def clamp_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Clamp in place: ``clamp_(min=None, max=None)``."""
        a = sig.CLAMP_.parse(args, kwargs)[1]
        return ops.clamp_(self, a["min"], a["max"])

    clip_ = clamp_

    def relu_(self: Any, *args: Any) -> Tensor:
        """ReLU in place."""
        if args:
            no_arguments("relu_", args)
        return ops.relu_(self)

    def sigmoid_(self: Any, *args: Any) -> Tensor:
        """Sigmoid in place (saves the new value)."""
        if args:
            no_arguments("sigmoid_", args)
        return ops.sigmoid_(self)

    def exp_(self: Any, *args: Any) -> Tensor:
        """Exponential in place (saves the new value)."""
        if args:
            no_arguments("exp_", args)
        return ops.exp_(self)

    def tanh_(self: Any, *args: Any) -> Tensor:
        """Tanh in place (saves the new value)."""
        if args:
            no_arguments("tanh_", args)
        return ops.tanh_(self)

    def sin_(self: Any, *args: Any) -> Tensor:
        """Sine in place (saves the value before the write)."""
        if args:
            no_arguments("sin_", args)
        return ops.sin_(self)

    def cos_(self: Any, *args: Any) -> Tensor:
        """Cosine in place (saves the value before the write)."""
        if args:
            no_arguments("cos_", args)
        return ops.cos_(self)

    def neg_(self: Any, *args: Any) -> Tensor:
        """Negate in place."""
        if args:
            no_arguments("neg_", args)
        return ops.neg_(self)

    def abs_(self: Any, *args: Any) -> Tensor:
        """Absolute value in place (saves the value before the write)."""
        if args:
            no_arguments("abs_", args)
        return ops.abs_(self)

    def sqrt_(self: Any, *args: Any) -> Tensor:
        """Square root in place (saves the new value)."""
        if args:
            no_arguments("sqrt_", args)
        return ops.sqrt_(self)

    def log_(self: Any, *args: Any) -> Tensor:
        """Natural log in place (saves the value before the write)."""
        if args:
            no_arguments("log_", args)
        return ops.log_(self)

    def normal_(
        self: Any, mean: builtins.float = 0.0, std: builtins.float = 1.0, *, generator: Any = None
    ) -> Tensor:
        """Fill with normal samples in place."""
        return ops.normal_(self, mean, std, generator=generator)

    def uniform_(
        self: Any, a: builtins.float = 0.0, b: builtins.float = 1.0, *, generator: Any = None
    ) -> Tensor:
        """Fill with uniform samples in place."""
        return ops.uniform_(self, a, b, generator=generator)

    def bernoulli_(self: Any, p: Any = 0.5, *, generator: Any = None) -> Tensor:
        """Fill with draws of 1 with probability ``p`` (a float or a tensor) in place."""
        return ops.bernoulli_(self, p, generator=generator)

    def bernoulli(self: Any, p: Any = None, *, generator: Any = None) -> Tensor:
        """Draws of 1 with probability ``self`` (or ``p``), as ``torch.bernoulli``."""
        return ops.bernoulli(self, p, generator=generator)

    # ------------------------------------------------------------------ in-place view ops
    def t_(self: Any, *args: Any) -> Tensor:
        """Transpose in place: new geometry, version + 1 (``TBackward1``)."""
        if args:
            no_arguments("t_", args)
        return ops.t_(self)

    def transpose_(self: Any, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """Swap two dims in place (``TransposeBackward1``)."""
        return ops.transpose_(self, dim0, dim1)

    def swapdims_(self: Any, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """``transpose_``."""
        return ops.transpose_(self, dim0, dim1)

    def swapaxes_(self: Any, axis0: builtins.int, axis1: builtins.int) -> Tensor:
        """``transpose_``."""
        return ops.transpose_(self, axis0, axis1)

    def squeeze_(self: Any, dim: Any = None) -> Tensor:
        """Drop size-1 dims in place."""
        return ops.squeeze_(self, dim)

    def unsqueeze_(self: Any, dim: builtins.int) -> Tensor:
        """Insert a size-1 dim in place."""
        return ops.unsqueeze_(self, dim)

    def as_strided_(self: Any, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
        """Any geometry over the same storage, in place (``AsStridedBackward1``)."""
        return ops.as_strided_(self, size, stride, storage_offset)

    def resize_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """New sizes in place, the storage grown when too small (see
        ``ownership.ops.resizing``); bumps the version only when the sizes change."""
        a = sig.RESIZE_.parse(args, kwargs)[1]
        return ops.resize_(self, a["size"], a["memory_format"])

    def resize_as_(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """``resize_(the_template.shape)``."""
        a = sig.RESIZE_AS_.parse(args, kwargs)[1]
        return ops.resize_as_(self, a["the_template"], a["memory_format"])
