"""``isclose`` and ``allclose``: ``|a - b| <= atol + rtol * |b|`` elementwise, or for all elements.

As torch computes it: both tensors must have the same dtype and non-negative tolerances; equal
elements are close (infinities of one sign included; NaNs only with ``equal_nan``); otherwise the
errors are computed in the tensors' floating dtype, integers and bools first converted to the
default dtype (so that a difference cannot overflow), and a non-finite difference is never close.
Both tolerances 0 leave equality alone. The result is a bool tensor of the broadcast shape
(never recorded: a comparison has no gradient; its version is torch's, see :func:`isclose`); ``allclose`` is whether all of it is True.

>>> import ownership
>>> ownership.tensor([1.0, 2.0]).isclose(ownership.tensor([1.0 + 1e-6, 2.1]))
tensor([ True, False])
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.tensor import Tensor
from ownership.ops.common import lay_out, wrap, written_fresh


def _double(value: float) -> str:
    """A C++ double as torch's messages print it (``std::ostream``'s six significant digits)."""
    return f"{value:g}"


def _close(a: Tensor, b: Tensor, rtol: float, atol: float, equal_nan: bool) -> NDArray[np.bool_]:
    """torch's ``isclose``: its refusals in its order, then the elementwise closeness."""
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{a.dtype.short} did not match {b.dtype.short}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_double(rtol)}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_double(atol)}")
    layout.broadcast_shapes(a._data.shape, b._data.shape)
    x, y = a._data, b._data
    close: NDArray[np.bool_] = np.asarray(x == y)
    if equal_nan and a.dtype.is_floating_point:
        close = close | (np.isnan(x) & np.isnan(y))
    if rtol == 0 and atol == 0:
        return close
    if not a.dtype.is_floating_point:
        kind = dtypes.get_default_dtype().np
        x, y = x.astype(kind), y.astype(kind)
    scalar = x.dtype.type  # the tolerances, as the tensors' floating dtype holds them
    allowed = scalar(atol) + np.abs(scalar(rtol) * y)
    actual = np.abs(x - y)
    out: NDArray[np.bool_] = close | (np.isfinite(actual) & (actual <= allowed))
    return out


def isclose(
    a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """Whether each element of ``a`` is close to ``b``'s (a bool tensor of the broadcast shape).

    torch builds the result with in-place ors (``close.__ior__(...)``): one for ``equal_nan`` on
    a floating dtype, one unless both tolerances are 0; its version counts them."""
    out = wrap(_close(a, b, rtol, atol, equal_nan), dtypes.bool_)
    lay_out(out, a, b)
    return written_fresh(out, (equal_nan and a.dtype.is_floating_point) + (rtol != 0 or atol != 0))


def allclose(
    a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether every element of ``a`` is close to ``b``'s (a Python bool)."""
    return bool(_close(a, b, rtol, atol, equal_nan).all())
