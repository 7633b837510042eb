"""The type names torch's messages print: ``'torch.FloatTensor'`` for a tensor, ``'int'`` otherwise.

Module, optimizer and loading errors quote the type of the offending value exactly as
``torch.typename`` does, so that a message reads the same under either engine.

>>> from ownership.core.dtypes import float64
>>> import ownership
>>> typename(3), typename([1.0]), typename(ownership.zeros(1, dtype=float64))
('int', 'list', 'torch.DoubleTensor')
"""

from __future__ import annotations

from typing import Any

from ownership.core.storage import is_engine_tensor
from ownership.ops.type_names import is_torch_tensor

__all__ = ["class_str", "torch_module", "typename"]


def typename(obj: Any) -> str:
    """``'torch.<Legacy>Tensor'`` for a tensor (of either engine), else ``module.QualName`` with
    torch's module for an engine object (:func:`torch_module`).

    Builtins print bare (``'int'``, ``'list'``), like ``torch.typename``.
    """
    if not isinstance(obj, type):  # (a tensor class is named as any other class)
        if is_engine_tensor(obj):
            return f"torch.{obj.dtype.legacy}"
        if is_torch_tensor(obj):
            return str(obj.type())
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    module = torch_module(module)
    return qualname if module in {"", "builtins"} else f"{module}.{qualname}"


# The engine's modules whose objects torch defines elsewhere than at the same path under torch.
_NN_MODULES = {"activation", "batchnorm", "container", "dropout", "flatten", "linear", "loss"}
_TORCH_MODULES = {
    "ownership.core.tensor": "torch",  # torch.Tensor
    "ownership.core.dtypes": "torch",  # torch.dtype
    "ownership.nn.module": "torch.nn.modules.module",
    "ownership.nn.parameter": "torch.nn.parameter",
    "ownership.nn.module_list": "torch.nn.modules.container",
    "ownership.nn.parameter_list": "torch.nn.modules.container",
    **{f"ownership.nn.{m}": f"torch.nn.modules.{m}" for m in _NN_MODULES},
    **{
        f"ownership.optim.{m}": "torch.optim.lr_scheduler"
        for m in (
            "composite_schedules",
            "lambda_schedules",
            "lr_scheduler_base",
            "lr_scheduler_cyclic",
            "plateau",
            "warm_restarts",
        )
    },
}


def torch_module(module: str) -> str:
    """The module torch defines the counterpart of an engine object of ``module`` in, as its
    messages name it: ``'torch.nn.modules.activation'`` for ``ownership.nn.activation``,
    otherwise the same path under ``torch``; any other module as it is.

    >>> torch_module("ownership.nn.module_list"), torch_module("ownership.optim.sgd")
    ('torch.nn.modules.container', 'torch.optim.sgd')
    """
    if module != "ownership" and not module.startswith("ownership."):
        return module
    return _TORCH_MODULES.get(module, "torch" + module[len("ownership") :])


def class_str(cls: type) -> str:
    """``str(cls)`` as torch prints it: ``"<class 'torch.nn.modules.linear.Linear'>"`` for the
    engine's classes that torch has too (defined where torch defines them: the table of
    :func:`torch_module`), ``str(cls)`` for any other class, the engine's own included.

    >>> import ownership
    >>> class_str(ownership.nn.Sequential), class_str(float)
    ("<class 'torch.nn.modules.container.Sequential'>", "<class 'float'>")
    """
    module = _TORCH_MODULES.get(cls.__module__)
    return str(cls) if module is None else f"<class '{module}.{cls.__qualname__}'>"
