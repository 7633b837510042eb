"""A Python number beside a tensor, read as torch reads it: ints beyond a dtype, and ``alpha``.

torch takes a Python int operand as a 0-d *wrapped number* of dtype int64, or uint64 from
``2**63`` up to ``2**64 - 1`` (beyond that, :func:`ownership.ops.common.python_int` refuses it).
Three rules follow, one function each:

- an elementwise op that computes in an integer dtype (``+``, ``-``, ``*``, ``**`` with a number
  base, the comparisons, the bitwise ops) casts the number to that dtype as a tensor cast does,
  keeping its low bits (:func:`int_in`): ``int32 + 2**32`` adds 0, ``int64 + 2**63`` adds
  ``-2**63``, and ``int32_tensor < 2**40`` compares with 0;
- an op that takes a number as a parameter (``clamp``'s bounds, ``where``'s value, ``alpha``, an
  integer ``pow`` exponent) converts it checked, and refuses a number its dtype cannot hold with
  torch's "value cannot be converted to type int without overflow" (:func:`int_parameter`);
- a uint64 number does not promote with bool tensors (:func:`refuse_uint64`).

``add`` and ``sub`` scale their operand by ``alpha`` as torch's ``alpha_check`` allows
(:func:`scaled`): a bool alpha only for a bool result, a float alpha only for a floating one.

>>> import ownership
>>> ownership.tensor([1, 2], dtype=ownership.int32) + 2**32
tensor([1, 2], dtype=torch.int32)
>>> ownership.tensor([1, 2]) < 2**63
tensor([False, False])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ownership.core import dtypes
from ownership.ops import checks

_UINT64 = 2**64 - 1
_FITS = {dtypes.int32: (-(2**31), 2**31), dtypes.int64: (-(2**63), 2**63)}
UINT64_PROMOTION = (
    "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote Bool and "
    "UInt64"
)


def int_in(b: int, dt: dtypes.dtype) -> Any:
    """The Python int ``b`` as an elementwise op computing in ``dt`` reads it: in an integer
    dtype it cannot hold, its low bits as a number of ``dt`` (two's complement, as torch casts its
    wrapped number); otherwise ``b`` itself (numpy reads it then as torch does)."""
    bounds = _FITS.get(dt)
    if bounds is None or bounds[0] <= b < bounds[1]:
        return b
    return np.array(b & _UINT64, np.uint64).astype(dt.np)[()]


def operand_in(b: Any, dt: dtypes.dtype) -> Any:
    """The numpy value of the operand ``b`` (a tensor or a number) in an elementwise op computing
    in ``dt``: a tensor's array cast to ``dt`` first, as torch's TensorIterator casts its inputs
    (a float64 0-d tensor beyond float32's range is inf in a float32 op), a Python int read by
    :func:`int_in`, any other number as is."""
    if type(b) is int:
        return int_in(b, dt)
    data = getattr(b, "_data", None)
    return b if data is None else data if data.dtype == dt.np else data.astype(dt.np)


def int_parameter(value: Any, dt: dtypes.dtype) -> None:
    """torch's refusal of a Python int parameter that the integer dtype ``dt`` cannot hold."""
    if type(value) is int and dt in _FITS:
        checks.fits(dt, value)


def refuse_uint64(tensor_dtypes: Iterable[dtypes.dtype], *numbers: Any) -> None:
    """torch's refusal when a number from ``2**63`` up (a uint64) meets only bool tensors: its
    dtype would decide the result, and torch does not promote uint64 with bool."""
    if any(type(n) is int and n >= 2**63 for n in numbers) and all(
        d is dtypes.bool_ for d in tensor_dtypes
    ):
        raise RuntimeError(UINT64_PROMOTION)


def scaled(value: Any, alpha: Any, dt: dtypes.dtype, *, negated: bool = False) -> Any:
    """``alpha * value`` as ``add`` and ``sub`` compute it in ``dt`` (``value`` is an operand's
    numpy value in ``dt``): torch's ``alpha_check``, then ``alpha`` converted to ``dt``, checked
    (:func:`~ownership.ops.checks.fits`, :func:`int_parameter`; ``negated``: ``sub``, which
    converts ``-alpha``, negated as an int64, so that ``-2**31`` fits an int32 and ``-2**63``
    an int64), or to a bool; a product of two integer numbers keeps its low bits, as in
    ``dt``."""
    if isinstance(alpha, bool | np.bool_):
        if dt is not dtypes.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif not dt.is_floating_point and not isinstance(alpha, int | np.integer):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if dt is dtypes.bool_:
        return value * bool(alpha)
    if negated and type(alpha) is int:  # sub adds -alpha, an int64 Scalar: -(-2**63) wraps
        alpha = -int(int_in(-alpha, dtypes.int64))
    if dt.is_floating_point:  # alpha converted to dt, checked: 1e300 into float32 is refused
        checks.fits(dt, alpha)
    elif type(alpha) is int:
        int_parameter(-alpha if negated else alpha, dt)
        alpha = int(int_in(alpha, dt))  # its low bits: the product's, as in dt
    if type(alpha) is int and isinstance(value, int | np.integer) and dt in _FITS:
        return int_in(int(value) * alpha, dt)
    return value * alpha
