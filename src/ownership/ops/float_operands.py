"""A Python float beside a floating tensor, as numpy's ufuncs take it fastest.

numpy reads a Python float operand of an array of a floating dtype as that dtype (NEP 50: the
float is rounded to it, then the ufunc runs in it). Handing the ufunc a 0-d array of that dtype
holding the rounded float computes exactly the same, without numpy's per-call look at the Python
scalar (a third of a microsecond, as much as the arithmetic of a small tensor): ``x * 1.01``,
``x + 0.1``, ``x - 0.05``. The 0-d arrays are made once per (dtype, value) and shared, read-only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_ARRAYS: dict[Any, dict[float, Any]] = {np.dtype(np.float32): {}, np.dtype(np.float64): {}}
"""The shared 0-d arrays of float32 and float64 by value (a zero, a NaN or an infinity is never
kept: a dict cannot tell ``0.0`` from ``-0.0``, and those are not worth the look)."""
_KEPT = 1024  # values kept per dtype at most (a program uses a few constants; then start over)


def float_operand(b: float, np_dtype: Any) -> Any:
    """What numpy computes ``array op b`` with for a Python float ``b`` and an array of
    ``np_dtype``: a read-only 0-d array of ``b`` rounded to a float32 or float64 ``np_dtype``
    (the same values as ``b`` itself, faster), else ``b`` itself."""
    arrays = _ARRAYS.get(np_dtype)
    if arrays is None:
        return b
    made = arrays.get(b)
    if made is not None:
        return made
    with np.errstate(over="ignore"):  # a float beyond float32's range: inf, not kept
        made = np.array(b, dtype=np_dtype)
    if b == 0 or not np.isfinite(made):  # see ``_ARRAYS``: kept as the Python float
        return b
    made.flags.writeable = False
    if len(arrays) >= _KEPT:
        arrays.clear()
    arrays[b] = made
    return made
