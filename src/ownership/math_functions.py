"""The ``torch.*`` functions of the math beyond ``+ - * /`` that take a number first
(``torch.floor_divide(7, x)``, ``torch.remainder(7, x)``): written by hand. The others
(``maximum``, ``clamp_min``, ``cumsum``, ``prod``...) are made from their declarations in
:mod:`ownership.ops.methods` (:mod:`ownership.functions`)."""

from __future__ import annotations

from typing import Any

from ownership.core.binder import Signatures
from ownership.core.tensor import Tensor
from ownership.functions import _number_or_tensor
from ownership.ops import signatures as sig
from ownership.ops.out_variants import with_out

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
