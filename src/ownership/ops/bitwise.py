"""Bitwise ops: ``&``, ``|`` and ``^`` of bool and integer tensors, never differentiable.

torch's ``bitwise_and``, ``bitwise_or`` and ``bitwise_xor``: the result takes torch's promoted
dtype (``bool & int`` is int64), a Python int operand keeps its low bits in it
(:mod:`ownership.ops.python_numbers`), and a floating result has no kernel. On bool tensors they
are the logical ops; ``logical_and`` and ``logical_or`` (:mod:`ownership.ops.comparison`) give a
bool tensor for any dtype.

>>> import ownership
>>> ownership.tensor([1, 3]) & 2, ownership.tensor([True, False]) ^ True
(tensor([0, 2]), tensor([False,  True]))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ownership._tensor import Tensor
from ownership.ops.common import check_broadcast, operand, result_dtype, wrap
from ownership.ops.python_numbers import operand_in


def _bitwise(fn: np.ufunc, name: str) -> Callable[[Tensor, Any], Tensor]:
    """The bitwise op ``name`` (torch's kernel name), computed by numpy's ``fn`` and cast to
    torch's result dtype (the low bits: the same as casting the operands first)."""

    def op(a: Tensor, b: Any) -> Tensor:
        b = operand(b)
        dt = result_dtype(a, b)
        check_broadcast(a, b)
        if dt.is_floating_point:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dt.short}'")
        return wrap(fn(a._data, operand_in(b, dt)), dt)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of bool or integer tensors (torch's ``{name}``)."
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
