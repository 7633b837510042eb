"""The type names torch's messages print: ``'torch.FloatTensor'`` for a tensor, ``'int'`` otherwise.

Module, optimizer and loading errors quote the type of the offending value exactly as
``torch.typename`` does, so that a message reads the same under either engine.

>>> from ownership.dtypes import float64
>>> import ownership
>>> typename(3), typename([1.0]), typename(ownership.zeros(1, dtype=float64))
('int', 'list', 'torch.DoubleTensor')
"""

from __future__ import annotations

from typing import Any

__all__ = ["typename"]


def typename(obj: Any) -> str:
    """``'torch.<Legacy>Tensor'`` for a tensor (of either engine), else ``module.QualName``.

    Builtins print bare (``'int'``, ``'list'``), like ``torch.typename``.
    """
    dtype = getattr(obj, "dtype", None)
    legacy = getattr(dtype, "legacy", None)
    if legacy is not None and hasattr(obj, "_version"):
        return f"torch.{legacy}"
    if callable(getattr(obj, "type", None)) and hasattr(obj, "_version"):  # a torch tensor
        return str(obj.type())
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in {"", "builtins"} else f"{module}.{qualname}"
