"""The ``torch.*`` functions of the math beyond ``+ - * /``: each parses torch's signatures and
calls the method of its input (:mod:`ownership.tensor_math`)."""

from __future__ import annotations

from ownership import signatures as sig
from ownership.functions import _method

maximum = _method("maximum", f"(Tensor input, Tensor other, {sig.OUT})")
minimum = _method("minimum", f"(Tensor input, Tensor other, {sig.OUT})")
clamp_min = _method(
    "clamp_min", f"(Tensor input, Tensor min, {sig.OUT})", f"(Tensor input, Number min, {sig.OUT})"
)
clamp_max = _method(
    "clamp_max", f"(Tensor input, Tensor max, {sig.OUT})", f"(Tensor input, Number max, {sig.OUT})"
)
clamp_min_ = _method("clamp_min_", "(Tensor input, Tensor min)", "(Tensor input, Number min)")
clamp_max_ = _method("clamp_max_", "(Tensor input, Tensor max)", "(Tensor input, Number max)")
