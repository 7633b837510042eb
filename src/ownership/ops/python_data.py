"""How ``tensor(data)`` reads nested Python data: torch's ``internal_new_from_data`` rules and errors.

torch reads a nested list in three passes, and each has its own refusal: the sizes (following the
first element down), the dtype (every element, promoted), then the values (where a ragged list or
an element that is not a number fails). ``read`` runs the same passes on Python data, so numpy
never sees a list it would turn into an object array or refuse in its own words.

>>> read([[1, 2], [3, 4.5]], None)[0].name
'float32'
>>> read([1, None], None)
Traceback (most recent call last):
...
RuntimeError: Could not infer dtype of NoneType
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ownership.core import dtypes
from ownership.core.dtypes import dtype as DType
from ownership.core.tensor import Tensor
from ownership.ops.type_names import tp_name

_MAX_DIMS = 64
_INT64 = (-(2**63), 2**63 - 1)


def _is_sequence(obj: Any) -> bool:
    """CPython's ``PySequence_Check`` for the data torch reads: lists, tuples, strings, ranges."""
    return isinstance(obj, list | tuple | str | bytes | range)


def _sizes(data: Any) -> list[int]:
    sizes: list[int] = []
    seq = data
    while _is_sequence(seq):
        sizes.append(len(seq))
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{tp_name(seq)}'")
        if not seq:
            break
        seq = seq[0]
    return sizes


def _scalar_type(obj: Any) -> DType:
    if isinstance(obj, str | bytes):
        raise TypeError(f"new(): invalid data type '{tp_name(obj)}'")
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, np.ndarray | np.generic):
        return dtypes.from_numpy_dtype(obj.dtype)
    if hasattr(obj, "__array__"):  # a torch tensor inside a list: read through numpy
        return dtypes.from_numpy_dtype(np.asarray(obj).dtype)
    if isinstance(obj, bool):
        return dtypes.bool_
    if isinstance(obj, int):
        return dtypes.int64
    if isinstance(obj, float):
        return dtypes.get_default_dtype()
    if isinstance(obj, list | tuple | range):
        if not obj:
            return dtypes.get_default_dtype()
        out = _scalar_type(obj[0])
        for item in obj[1:]:
            out = dtypes.promote_types(out, _scalar_type(item))
        return out
    raise RuntimeError(f"Could not infer dtype of {tp_name(obj)}")


def _values(data: Any, sizes: list[int], dim: int, dtype: DType) -> Any:
    """``data`` checked as torch's ``recursive_store`` reads it into ``dtype``, each tensor in it
    read as one number: a tensor is no sequence to torch, but a scalar unpacked by the dtype's
    Python conversion (``float()`` for a floating dtype: "only one element tensors ...";
    ``__index__`` for an integer or bool one)."""
    if dim == len(sizes):
        if isinstance(data, Tensor):
            return float(data) if dtype.is_floating_point else operator.index(data)
        if isinstance(data, bool | float | np.generic) or hasattr(data, "__array__"):
            return data
        if isinstance(data, int):
            if not _INT64[0] <= data <= _INT64[1]:
                raise ValueError("Overflow when unpacking long long")
            return data
        if dtype.is_floating_point:
            raise TypeError(f"must be real number, not {tp_name(data)}")
        raise TypeError(f"'{tp_name(data)}' object cannot be interpreted as an integer")
    if not _is_sequence(data):
        raise TypeError("not a sequence")
    if len(data) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(data)})")
    return [_values(item, sizes, dim + 1, dtype) for item in data]


def read(data: Any, dtype: DType | None) -> tuple[DType, Any]:
    """The dtype ``tensor(data)`` gets (``dtype`` if given) and ``data`` with each tensor in it
    read as a number, after torch's checks of ``data``.

    ``data`` is a Python number or a (nested) list or tuple of them; tensors and numpy values
    inside are taken as numbers.
    """
    if isinstance(data, str | bytes):
        raise TypeError(f"new(): invalid data type '{tp_name(data)}'")
    sizes = _sizes(data)
    inferred = dtype or _scalar_type(data)
    return inferred, _values(data, sizes, 0, inferred)
