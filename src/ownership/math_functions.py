"""The ``torch.*`` functions of the math beyond ``+ - * /``: each parses torch's signatures and
calls the method of its input (declared in :mod:`ownership.ops.methods`)."""

from __future__ import annotations

from typing import Any

from ownership.core.binder import Signatures
from ownership.core.tensor import Tensor
from ownership.functions import _method, _no_tensor_bound, _number_or_tensor
from ownership.ops import signatures as sig
from ownership.ops.out_variants import with_out

OUT_ = "Tensor out = None"  # ``out=`` after other keyword-only parameters

maximum = _method("maximum", f"(Tensor input, Tensor other, {sig.OUT})", writes_out=True)
minimum = _method("minimum", f"(Tensor input, Tensor other, {sig.OUT})", writes_out=True)
clamp_min = _method(
    "clamp_min",
    f"(Tensor input, Tensor min, {sig.OUT})",
    f"(Tensor input, Number min, {sig.OUT})",
    writes_out=True,
    same_dtype=_no_tensor_bound,
)
clamp_max = _method(
    "clamp_max",
    f"(Tensor input, Tensor max, {sig.OUT})",
    f"(Tensor input, Number max, {sig.OUT})",
    writes_out=True,
    same_dtype=_no_tensor_bound,
)
clamp_min_ = _method("clamp_min_", "(Tensor input, Tensor min)", "(Tensor input, Number min)")
clamp_max_ = _method("clamp_max_", "(Tensor input, Tensor max)", "(Tensor input, Number max)")
_FLOOR_DIVIDE = Signatures(
    "floor_divide",
    f"(Tensor input, Tensor other, {sig.OUT})",
    "(Tensor input, Number other)",
    numbers_as_tensors=True,
)


def floor_divide(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.floor_divide(input, other)``: ``input // other``; either may be a number."""
    a = _FLOOR_DIVIDE.parse(args, kwargs)[1]
    x, y = a["input"], a["other"]
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        return y.__rfloordiv__(x)
    return _number_or_tensor(x).floor_divide(y)


floor_divide = with_out(_FLOOR_DIVIDE, floor_divide)


cumsum = _method("cumsum", f"(Tensor input, int dim, *, torch.dtype dtype = None, {OUT_})")
prod = _method(
    "prod",
    "(Tensor input, *, torch.dtype dtype = None)",
    f"(Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, {OUT_})",
)
cumprod = _method("cumprod", f"(Tensor input, int dim, *, torch.dtype dtype = None, {OUT_})")
nansum = _method(
    "nansum",
    "(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
    f"torch.dtype dtype = None, {OUT_})",
)
_REMAINDER = Signatures(
    "remainder",
    f"(Tensor input, Tensor other, {sig.OUT})",
    "(Number self, Tensor other)",
    f"(Tensor input, Number other, {sig.OUT})",
)


def remainder(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.remainder(input, other)``: ``input % other``; ``input`` may be a number."""
    overload, a = _REMAINDER.parse(args, kwargs)
    if overload == 1:
        return a["other"].__rmod__(a["self"])  # type: ignore[no-any-return]
    return a["input"].remainder(a["other"])  # type: ignore[no-any-return]


remainder = with_out(_REMAINDER, remainder)
