"""How close two engines' floating-point results must be: the project's one tolerance rule.

torch and numpy each pick their SIMD kernels (``exp``, ``tanh``, sums, matrix products) by what the
CPU offers, so the same float32 program gives results that differ in the last bits from one
machine to the next, and between the engines on any one machine. A tolerance tuned to one machine
fails on another; so every comparison of two engines' floating-point results follows one rule,
from the dtype and the computation, never from a number that happened to pass here.

The rule: ``actual`` agrees with ``expected`` when, element by element::

    |actual - expected| <= unit * (M + |expected|),    unit = ops * eps

- ``eps`` is the machine epsilon (``numpy.finfo``) of the less precise of the result's dtype and
  ``computed_in``, the least precise dtype the computation passed through: float32 by default,
  the engines' default dtype (a float64 tensor made by ``.double()`` from float32 results carries
  float32 rounding, and a Python float is most often a float32 tensor's ``.item()``);
- ``M`` is the scale of the computation: the largest finite ``|expected|`` in the whole tensor,
  but at least ``scale``, the size of the data the program started from (1 by default). An entry
  that cancels carries the rounding of the terms it came from: a gradient entry of 0.0094 (or an
  exact 0 computed as 1e-17) from terms of size 0.1 to 1 is off by about eps times those terms,
  far more than eps times itself;
- ``ops`` is how many roundings the result went through times how much the computation amplifies
  them (its condition number). :data:`OPS` covers a chain of a dozen or so elementwise,
  transcendental and reduction ops on well-conditioned data; a computation that amplifies rounding
  more (training-mode BatchNorm on a small batch divides by a small standard deviation; optimiser
  steps compound) passes a larger ``ops`` and says why.

Integers and booleans compare exactly. A comparison whose point is the formula rather than the
engines' rounding is run in float64 (``computed_in="float64"``), where the same rule is ``2**29``
times stricter.

>>> tolerance_for("float32")
(7.62939453125e-06, 7.62939453125e-06)
>>> tolerance_for("float64", magnitude=2.0, ops=1, computed_in="float64")
(2.220446049250313e-16, 4.440892098500626e-16)
>>> tolerance_for("int64")
(0.0, 0.0)
>>> Tolerance().allows(np.float32([0.1, 0.0094]), np.float32([0.1, 0.0094 + 2e-6]))
True
>>> Tolerance().allows(np.float32([0.1, 0.0094]), np.float32([0.1, 0.0095]))
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["DEFAULT", "OPS", "Tolerance", "magnitude", "tolerance_for"]

OPS = 64.0
"""The default roundings times condition: a chain of a dozen ops or so on well-conditioned data.
(The suites' comparisons need at most 6 on the machines measured, with numpy's and torch's
AVX-512 kernels and with both held to baseline kernels: a margin of ten.)"""

COMPUTED_IN = "float32"
"""The default least precise dtype of a computation: the engines' default dtype."""


def _dtype(dtype: Any) -> np.dtype[Any]:
    """A numpy dtype from a numpy dtype or scalar type, a name (``"float32"``) or a torch dtype."""
    if isinstance(dtype, (np.dtype, type)):
        return np.dtype(dtype)
    return np.dtype(str(dtype).rsplit(".", 1)[-1])


def tolerance_for(
    dtype: Any,
    magnitude: float = 1.0,
    *,
    ops: float = OPS,
    computed_in: Any = COMPUTED_IN,
) -> tuple[float, float]:
    """``(rtol, atol)`` for ``numpy.allclose`` on results of ``dtype`` whose scale is
    ``magnitude``: ``rtol = ops * eps`` (``eps`` of the less precise of ``dtype`` and
    ``computed_in``), ``atol = rtol * magnitude``; ``(0, 0)`` for integer and boolean dtypes."""
    kind = _dtype(dtype)
    if kind.kind not in "fc":
        return 0.0, 0.0
    eps = max(float(np.finfo(kind).eps), float(np.finfo(_dtype(computed_in)).eps))
    unit = float(ops) * eps
    return unit, unit * float(magnitude)


def magnitude(values: ArrayLike) -> float:
    """The largest finite ``|value|`` (0.0 when there is none): the scale of a whole tensor."""
    finite = np.abs(np.asarray(values))
    finite = finite[np.isfinite(finite)]
    return float(finite.max()) if finite.size else 0.0


@dataclass(frozen=True)
class Tolerance:
    """The rule's parameters for one comparison (see the module docstring): ``ops`` (roundings
    times condition), ``scale`` (the size of the data the computation started from) and
    ``computed_in`` (its least precise dtype)."""

    ops: float = OPS
    scale: float = 1.0
    computed_in: str = COMPUTED_IN

    def allows(self, expected: ArrayLike, actual: ArrayLike) -> bool:
        """Whether ``actual`` agrees with ``expected`` (same shape assumed): exactly for integers
        and booleans, else within :func:`~ownership.tolerance.tolerance_for` ``expected``'s dtype
        and the scale ``max(max|expected|, scale)``. NaN agrees with NaN, an infinity only with
        itself."""
        e, a = np.asarray(expected), np.asarray(actual)
        if e.dtype.kind in "biu" and a.dtype.kind in "biu":
            return bool(np.array_equal(e, a))
        dtype = e.dtype if e.dtype.kind in "fc" else a.dtype
        scale = max(magnitude(e), self.scale)
        rtol, atol = tolerance_for(dtype, scale, ops=self.ops, computed_in=self.computed_in)
        return bool(np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True))


DEFAULT = Tolerance()
"""The rule with its defaults: what :mod:`ownership.compare` and the tests use unless told."""
