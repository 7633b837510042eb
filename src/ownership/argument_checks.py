"""torch's parser's checks of an int list's elements (``tuple of ints``): the first element's
check, which decides whether a list is an int list at all, and the reading of every element.

The checks of one value that are not the parser's own (an int, a number, a tensor, an int64) are
the ops': :mod:`ownership.ops.argument_values`.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ownership.ops.argument_values import is_tensor
from ownership.ops.tensor_conversion import TensorConversion
from ownership.ops.type_names import tp_name

__all__ = ["list_index", "python_ints", "starts_int_list"]


def starts_int_list(obj: Any) -> bool:
    """torch's check of the first element of an int list (``is_int_or_symint``): an int, not a
    bool; a one-element tensor of an integer or bool dtype; anything else with ``__index__``.
    Only the first element is checked here; the others are read by :func:`list_index`."""
    if isinstance(obj, bool | np.bool_):
        return False
    if isinstance(obj, int | np.integer):
        return True
    if is_tensor(obj):
        return obj._data.size == 1 and obj._data.dtype.kind in "iub"
    try:
        operator.index(obj)
    except Exception:  # whatever ``__index__`` raises, torch only asks whether it worked
        return False
    return True


def list_index(obj: Any) -> int:
    """One element of an int list read as torch reads it (``THPUtils_unpackIndex``): its
    ``__index__`` (a bool is 1 or 0); ValueError when it is not one."""
    try:
        # a tensor read by the parser, no call of the program's: no observer sees it
        return TensorConversion.__index__(obj) if is_tensor(obj) else operator.index(obj)
    except Exception:
        raise ValueError(tp_name(obj)) from None


def python_ints(value: Any) -> tuple[int, ...] | None:
    """An int list (a tuple, list or ``Size``) whose elements are all Python ints, read as
    :func:`list_index` reads each of them (an int's ``__index__`` is itself): the tuple of
    them; None when some element is anything else (a bool, a float, a numpy int, a tensor),
    which :func:`list_index` reads one by one.

    >>> python_ints([2, 3]), python_ints((2, True))
    ((2, 3), None)
    """
    for item in value:
        if type(item) is not int:
            return None
    return value if type(value) is tuple else tuple(value)
