"""Tensor view methods: results share storage and version counter with the tensor (``_base``).

``reshape`` is a view when the strides allow it, else a copy. These are the views whose calls
take a fast path (the sizes or dims given as Python ints bind as the parser binds them, without
it) and the properties ``T`` and ``mT``; the other view methods (``flatten``, ``diagonal``,
``narrow``, ``unbind``/``split``/``chunk``, whose multi-output views refuse in-place writes with
grad mode on) are declared with their ops (:mod:`ownership.ops.methods`).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from ownership.core import op_registry
from ownership.core.argument_values import int64
from ownership.core.binder import Signatures
from ownership.core.layout import Size

if TYPE_CHECKING:
    from ownership.core.op_table import CoreOps
    from ownership.core.tensor import Tensor

ops: CoreOps[Tensor] = op_registry.ops

# the declarations of the view methods, as torch prints their signatures (bound by the binder)
VIEW = Signatures("view", "(torch.dtype dtype)", "(tuple of ints size)")
RESHAPE = Signatures("reshape", "(tuple of ints shape)")
TRANSPOSE = Signatures("transpose", "(int dim0, int dim1)")
PERMUTE = Signatures("permute", "(tuple of ints dims)")
EXPAND = Signatures("expand", "(tuple of ints size, *, bool implicit = False)")
UNSQUEEZE = Signatures("unsqueeze", "(int dim)")
SQUEEZE = Signatures("squeeze", "()", "(int dim)", "(tuple of ints dim)")
SELECT = Signatures("select", "(int dim, int index)")

_SIZE_TYPES = (tuple, list, Size)


def _python_ints(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[builtins.int, ...] | None:
    """The sizes of the common call of a sizes method, all Python ints given one by one or as one
    tuple, list or ``Size``, without keywords: what the parser binds for them. None for any other
    call (a keyword, a dtype, a float, a numpy int, nothing at all), which the parser binds."""
    if not args or kwargs:
        return None
    sizes = args[0] if len(args) == 1 and type(args[0]) in _SIZE_TYPES else args
    for item in sizes:
        if type(item) is not builtins.int:
            return None
    return sizes if type(sizes) is tuple else tuple(sizes)


def _int_args(args: tuple[Any, ...], kwargs: dict[str, Any], n: builtins.int) -> builtins.bool:
    """Whether the call is ``n`` Python ints, without keywords: the parser binds them as they are
    to the first ``n`` parameters, so a method whose parameters are ints may skip it."""
    if kwargs or len(args) != n:
        return False
    for item in args:  # noqa: SIM110 - a loop, not ``all`` of a generator (a call of its own)
        if type(item) is not builtins.int:
            return False
    return True


def _refuse_beyond_int64(args: tuple[Any, ...]) -> None:
    """The parser's ValueError for an int beyond int64, which the unparsed path (``x.t(d)``)
    meets only as an index error of its own: torch refuses the int first."""
    for item in args:
        int64(item)


class TensorViews:
    """The view methods of :class:`~ownership.core.tensor.Tensor` (see :mod:`ownership.ops.views` and :mod:`ownership.ops.multi_views`)."""

    __slots__ = ()

    def view(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Same storage, new shape (fails when the strides do not allow it)."""
        sizes = _python_ints(args, kwargs)
        if sizes is not None:
            return ops.view(self, sizes)
        overload, a = VIEW.parse(args, kwargs)
        if overload == 0:
            raise RuntimeError("view(dtype) is not supported by ownership")
        return ops.view(self, a["size"])

    def reshape(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """A view when the strides allow it, else a copy."""
        sizes = _python_ints(args, kwargs)
        if sizes is None:
            sizes = RESHAPE.parse(args, kwargs)[1]["shape"]
        return ops.reshape(self, sizes)

    @property
    def T(self: Any) -> Tensor:
        """All dimensions reversed (a view)."""
        return ops.T(self)

    @property
    def mT(self: Any) -> Tensor:
        """The last two dimensions swapped (a view)."""
        return ops.mT(self)

    def transpose(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Two dimensions swapped (a view): ``transpose(dim0, dim1)``."""
        if _int_args(args, kwargs, 2):
            try:
                return ops.transpose(self, args[0], args[1])
            except IndexError:
                _refuse_beyond_int64(args)
                raise
        a = TRANSPOSE.parse(args, kwargs)[1]
        return ops.transpose(self, a["dim0"], a["dim1"])

    def permute(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Dimensions reordered (a view)."""
        dims = _python_ints(args, kwargs)
        if dims is None:
            dims = PERMUTE.parse(args, kwargs)[1]["dims"]
        return ops.permute(self, dims)

    def expand(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Size-1 dimensions repeated with stride 0 (a view; writing into it is refused)."""
        sizes = _python_ints(args, kwargs)
        if sizes is None:
            sizes = EXPAND.parse(args, kwargs)[1]["size"]
        return ops.expand(self, sizes)

    def unsqueeze(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """A new size-1 dimension at ``dim`` (a view): ``unsqueeze(dim)``."""
        if _int_args(args, kwargs, 1):
            try:
                return ops.unsqueeze(self, args[0])
            except IndexError:
                _refuse_beyond_int64(args)
                raise
        return ops.unsqueeze(self, UNSQUEEZE.parse(args, kwargs)[1]["dim"])

    def squeeze(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Size-1 dimensions removed (a view): ``squeeze()``, ``squeeze(dim)``, ``squeeze(dims)``."""
        if _int_args(args, kwargs, 0):
            return ops.squeeze(self, None)
        if _int_args(args, kwargs, 1):
            try:
                return ops.squeeze(self, args[0])
            except IndexError:
                _refuse_beyond_int64(args)
                raise
        return ops.squeeze(self, SQUEEZE.parse(args, kwargs)[1].get("dim"))

    def select(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """Index ``index`` of ``dim``, removing it (a view): ``select(dim, index)``."""
        if _int_args(args, kwargs, 2):
            try:
                return ops.select(self, args[0], args[1])
            except IndexError:
                _refuse_beyond_int64(args)
                raise
        a = SELECT.parse(args, kwargs)[1]
        return ops.select(self, a["dim"], a["index"])

    # ------------------------------------------------------------------ aliases
