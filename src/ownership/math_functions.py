"""The ``torch.*`` functions of arithmetic written by hand, each declared beside its method in
:mod:`ownership.ops.methods` (``function=``): those whose first operand may be a number
(``torch.add(1, x)``, ``pow``, ``floor_divide``, ``remainder``, the shifts), ``where`` (alone:
``nonzero``) and ``equal``. The others (``maximum``, ``clamp_min``, ``cumsum``, ``prod``...) are
made from their declarations (:mod:`ownership.functions`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ownership.core import op_registry
from ownership.core.binder import Signatures
from ownership.core.dtypes import int64
from ownership.core.tensor import Tensor
from ownership.ops import signatures as sig
from ownership.ops.op_table import OpTable
from ownership.ops.out_variants import with_out

ops: OpTable[Tensor] = op_registry.ops


def _number_or_tensor(x: Any) -> Tensor:
    """A Python number given where torch's ``Tensor input`` also takes numbers: a 0-d tensor."""
    return x if isinstance(x, Tensor) else ops.tensor(x)


def add(*args: Any, **kwargs: Any) -> Tensor:
    """``input + alpha * other``; either may be a Python number (``torch.add(1, 2)``)."""
    a = sig.FN_ADD.parse(args, kwargs)[1]
    return _number_or_tensor(a["input"]).add(_operand(a["other"]), alpha=a["alpha"])


def sub(*args: Any, **kwargs: Any) -> Tensor:
    """``input - alpha * other``; either may be a Python number."""
    a = sig.FN_SUB.parse(args, kwargs)[1]
    return _number_or_tensor(a["input"]).sub(_operand(a["other"]), alpha=a["alpha"])


def mul(*args: Any, **kwargs: Any) -> Tensor:
    """``input * other``; either may be a Python number."""
    a = sig.FN_MUL.parse(args, kwargs)[1]
    return _number_or_tensor(a["input"]).mul(_operand(a["other"]))


def div(*args: Any, **kwargs: Any) -> Tensor:
    """``input / other`` (true division), or rounded (``rounding_mode``); either may be a Python
    number."""
    overload, a = sig.FN_DIV.parse(args, kwargs)
    if overload:
        mode = a["rounding_mode"]
        return _number_or_tensor(a["input"]).div(_operand(a["other"]), rounding_mode=mode)
    return _number_or_tensor(a["input"]).div(_operand(a["other"]))


def pow(*args: Any, **kwargs: Any) -> Tensor:
    """``input ** exponent``; the base or the exponent may be a Python number."""
    overload, a = sig.FN_POW.parse(args, kwargs)
    if overload == 1:
        return cast(Tensor, a["exponent"].__rpow__(a["self"]))
    return cast(Tensor, a["input"].pow(a["exponent"]))


# the pointwise arithmetic writes ``out=`` (the other functions' parsers refuse it)
add = with_out(sig.FN_ADD, add)
sub = with_out(sig.FN_SUB, sub)
mul = with_out(sig.FN_MUL, mul)
div = with_out(sig.FN_DIV, div)
pow = with_out(sig.FN_POW, pow)


def _operand(x: Any) -> Any:
    """A number operand stays a Python number (torch's wrapped number), a tensor stays a tensor."""
    return x.item() if isinstance(x, np.generic) else x


def where(*args: Any, **kwargs: Any) -> Tensor | tuple[Tensor, ...]:
    """``input`` where ``condition`` holds, else ``other``.
    ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``: the indices of its non-zero elements, per dimension."""
    overload, a = sig.FN_WHERE.parse(args, kwargs)
    if overload == 0:  # torch.where(condition) is nonzero(condition, as_tuple=True)
        found = np.nonzero(np.atleast_1d(a["condition"]._data))
        return tuple(Tensor._wrap(i.astype(np.int64), int64) for i in found)
    operands = (a["condition"], a.get("input", a.get("self")), a["other"])
    return ops.where(*operands)


_OTHER = (f"(Tensor input, Tensor other, {sig.OUT})", f"(Tensor input, Number other, {sig.OUT})")


def _shift(name: str) -> Callable[..., Any]:
    """``torch.<name>``, a shift: ``input.<name>(other)``, or, for a number ``self`` before a
    tensor ``other`` (``bitwise_left_shift(3, x)``), the number shifted by each element."""
    parser = Signatures(name, *_OTHER[:1], "(Number self, Tensor other)", *_OTHER[1:])

    def function(*args: Any, **kwargs: Any) -> Any:
        given = dict(parser.parse(args, kwargs)[1])
        given.pop("out", None)  # None: with_out took a given one
        if "self" in given:
            return ops.shift_of_number(given["self"], given["other"], name.endswith("right_shift"))
        return getattr(given["input"], name)(given["other"])

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, other)``: the method ``input.{name}(other)``."
    return with_out(parser, function)


bitwise_left_shift = _shift("bitwise_left_shift")
bitwise_right_shift = _shift("bitwise_right_shift")
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


def equal(*args: Any, **kwargs: Any) -> bool:
    """Same shape and same values."""
    a = _EQUAL.parse(args, kwargs)[1]
    x, y = a["input"], a["other"]
    return x.shape == y.shape and bool((x == y).all()._data)


_EQUAL = Signatures("equal", "(Tensor input, Tensor other)")
