"""The name torch prints for a value's type in its messages: CPython's ``tp_name``.

A general rule of messages, not of torch's parser: the ops' refusals (``copy_`` of a list)
and the parser's (:mod:`ownership.invalid_arguments`) all name a type this way.

>>> import numpy as np
>>> tp_name([1]), tp_name(np.zeros(1)), tp_name(np.float32(1))
('list', 'numpy.ndarray', 'numpy.float32')
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_torch_tensor", "tp_name"]

_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class written in Python


_TORCH_NAMES = {"dtype": "torch.dtype", "Size": "torch.Size", "Generator": "torch.Generator"}


def is_torch_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensor of torch itself (a learner mixing ``import torch`` with
    ``import ownership as torch``). It is no ownership Tensor: where torch refuses a numpy array
    the engine refuses it, named ``torch.Tensor``; where torch reads a numpy array (``x + a``)
    the engine reads it through numpy the same way. torch is not imported to ask."""
    cls = type(obj)
    return cls.__module__.partition(".")[0] == "torch" and hasattr(cls, "__array__")


def tp_name(obj: Any) -> str:
    """The name torch prints for ``obj``'s type: CPython's ``tp_name`` (``numpy.ndarray``, ``list``)."""
    cls = type(obj)
    if cls.__module__.startswith("ownership") and cls.__name__ in _TORCH_NAMES:
        return _TORCH_NAMES[cls.__name__]
    if is_torch_tensor(obj):  # never "expected Tensor ..., but got Tensor"
        return "torch.Tensor" if cls.__module__ == "torch" else f"{cls.__module__}.{cls.__name__}"
    if cls.__flags__ & _HEAPTYPE or cls.__module__ == "builtins":
        return cls.__name__
    return (
        f"{cls.__module__}.{cls.__name__}"  # a C type's dotted name (``numpy.dtypes.Int64DType``)
    )
