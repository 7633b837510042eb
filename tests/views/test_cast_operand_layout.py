"""An elementwise op's result is laid out by its operands *as cast* to the dtype it computes in.

torch's TensorIterator casts an input of another dtype first (``promote_inputs_to_common_dtype``;
``where`` casts its values itself), with ``to``, which lays a tensor that is not dense out densely
in its own dim order (``preserve_format``); the result then follows the casts. So ``x * y`` of a
float32 ``x`` of shape ``(1, 3)`` and strides ``(1, 2)`` is ``(1, 1)`` for a float32 ``y`` but
``(3, 1)`` for a float64 one: ``x.double()`` is ``(1, 1)``, contiguous, and so is ``y``
(fuzz seed 351814: ``(x of bool) ** 2``).
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def _sparse(t: Any, dtype: str) -> Any:
    """Shape ``(1, 3)``, strides ``(1, 2)``: neither contiguous nor dense."""
    return t.zeros((3, 2), dtype=getattr(t, dtype)).narrow(1, 0, 1).transpose(0, 1)


def _row(t: Any, dtype: str) -> Any:
    return t.ones(1, 3, dtype=getattr(t, dtype))


OPS: dict[str, Any] = {
    "bool ** 2 (fuzz seed 351814)": lambda t: _sparse(t, "bool") ** 2,
    "bool ** 2.0": lambda t: _sparse(t, "bool") ** 2.0,
    "int ** 0.5": lambda t: _sparse(t, "int32") ** 0.5,
    "int ** 2, no cast": lambda t: _sparse(t, "int32") ** 2,
    "bool * 2, a number": lambda t: _sparse(t, "bool") * 2,
    "bool * float": lambda t: _sparse(t, "bool") * _row(t, "float32"),
    "float * double": lambda t: _sparse(t, "float32") * _row(t, "float64"),
    "float * float, no cast": lambda t: _sparse(t, "float32") * _row(t, "float32"),
    "float * double, broadcast": lambda t: _sparse(t, "float32") * t.ones(1, 1, dtype=t.float64),
    "int + long": lambda t: _sparse(t, "int32") + _row(t, "int64"),
    "int - float, alpha": lambda t: t.sub(_sparse(t, "int32"), _row(t, "float32"), alpha=2),
    "int / int": lambda t: _sparse(t, "int32") / _row(t, "int32"),
    "int // long": lambda t: _sparse(t, "int32") // _row(t, "int64"),
    "float % double": lambda t: _sparse(t, "float32") % _row(t, "float64"),
    "2.5 - int": lambda t: 2.5 - _sparse(t, "int32"),
    "float ** double": lambda t: _sparse(t, "float32") ** _row(t, "float64"),
    "reciprocal of int": lambda t: _sparse(t, "int32").reciprocal(),
    "maximum": lambda t: t.maximum(_sparse(t, "float32"), _row(t, "float64")),
    "clamp by a float": lambda t: _sparse(t, "int32").clamp(min=0.5),
    "clamp_min by a tensor": lambda t: t.clamp_min(_sparse(t, "float32"), _row(t, "float64")),
    "int & long": lambda t: _sparse(t, "int32") & _row(t, "int64"),
    "float == double": lambda t: _sparse(t, "float32") == _row(t, "float64"),
    "int < float": lambda t: _sparse(t, "int32") < _row(t, "float32"),
    "where, the values cast": lambda t: t.where(
        _row(t, "bool"), _sparse(t, "float32"), _row(t, "float64")
    ),
    "where, the condition not": lambda t: t.where(
        _sparse(t, "bool"), _row(t, "float32"), _row(t, "float64")
    ),
    "3-d, permuted": lambda t: (
        t.zeros(2, 4, 6)[:, :, ::2].permute(2, 0, 1) * t.ones(2, 4, dtype=t.float64)
    ),
}


@pytest.mark.parametrize("op", OPS.values(), ids=OPS.keys())
def test_an_operand_takes_part_as_its_cast(op: Any) -> None:
    def program(t: Any) -> Any:
        y = op(t)
        return [y, y.dtype, y.stride(), y.is_contiguous()]

    same(program)
