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

__all__ = ["class_str", "typename"]

# where torch defines each of the engine's tensor and layer classes (its ``__module__``), by the engine file that
# defines it: ``class_str`` prints a class as torch prints its own
TORCH_MODULES = {
    "ownership._tensor": "torch",
    "ownership.nn.activation": "torch.nn.modules.activation",
    "ownership.nn.batchnorm": "torch.nn.modules.batchnorm",
    "ownership.nn.container": "torch.nn.modules.container",
    "ownership.nn.dropout": "torch.nn.modules.dropout",
    "ownership.nn.flatten": "torch.nn.modules.flatten",
    "ownership.nn.linear": "torch.nn.modules.linear",
    "ownership.nn.loss": "torch.nn.modules.loss",
    "ownership.nn.module": "torch.nn.modules.module",
    "ownership.nn.module_list": "torch.nn.modules.container",
    "ownership.nn.parameter": "torch.nn.parameter",
    "ownership.nn.parameter_list": "torch.nn.modules.container",
}


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


def class_str(cls: type) -> str:
    """``str(cls)`` as torch prints it: ``"<class 'torch.nn.modules.linear.Linear'>"`` for the
    engine's own layers (a class of torch's name defined where torch defines it), ``str(cls)``
    for any other class.

    >>> import ownership
    >>> class_str(ownership.nn.Sequential), class_str(float)
    ("<class 'torch.nn.modules.container.Sequential'>", "<class 'float'>")
    """
    module = TORCH_MODULES.get(cls.__module__)
    return str(cls) if module is None else f"<class '{module}.{cls.__qualname__}'>"
