"""Bitwise ops: ``&``, ``|``, ``^``, ``<<`` and ``>>`` of bool and integer tensors (and ``&=``,
``|=``, ``^=``, ``<<=``, ``>>=`` in place), never differentiable.

torch's ``bitwise_and``, ``bitwise_or`` and ``bitwise_xor``: the result takes torch's promoted
dtype (``bool & int`` is int64), a Python int operand keeps its low bits in it
(:mod:`ownership.ops.python_numbers`), and a floating result has no kernel. On bool tensors they
are the logical ops; ``logical_and`` and ``logical_or`` (:mod:`ownership.ops.comparison`) give a
bool tensor for any dtype. The shifts (``bitwise_left_shift``, ``bitwise_right_shift``) have no
bool kernel either, and shift by an amount outside ``[0, bits)`` as torch's CPU kernel does: a left
shift gives 0, a right shift the sign (:func:`shift_left_values`, :func:`shift_right_values`).

>>> import ownership
>>> ownership.tensor([1, 3]) & 2, ownership.tensor([True, False]) ^ True
(tensor([0, 2]), tensor([False,  True]))
>>> ownership.tensor([1, -8]) << 2, ownership.tensor([1, -8]) >> 70
(tensor([  4, -32]), tensor([ 0, -1]))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ownership.core import dtypes
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.inplace_rules import check_result, run_inplace
from ownership.core.tensor import Tensor
from ownership.ops.common import check_broadcast, lay_out, needs_grad, operand, result_dtype, wrap
from ownership.ops.python_numbers import operand_in

Values = Callable[[Any, Any], Any]


def shift_left_values(a: Any, b: Any) -> Any:
    """torch's ``a << b`` of two integer arrays, in their common dtype: 0 where ``b`` is negative
    or not less than that dtype's width in bits (the CPU kernel's rule; C leaves it undefined),
    else the low bits of ``a * 2**b``."""
    dt = np.result_type(a, b)
    a, b = np.asarray(a, dtype=dt), np.asarray(b, dtype=dt)
    outside = (b < 0) | (b >= dt.itemsize * 8)
    return np.where(outside, 0, np.left_shift(a, np.where(outside, 0, b))).astype(dt)


def shift_right_values(a: Any, b: Any) -> Any:
    """torch's ``a >> b`` of two integer arrays, in their common dtype: an arithmetic shift, by
    the width less one (the sign everywhere) where ``b`` is negative or not less than the
    width."""
    dt = np.result_type(a, b)
    a, b = np.asarray(a, dtype=dt), np.asarray(b, dtype=dt)
    bits = dt.itemsize * 8
    return np.right_shift(a, np.where((b < 0) | (b >= bits), bits - 1, b)).astype(dt)


def _bitwise(fn: Values, name: str, kernel: str | None = None) -> Callable[[Tensor, Any], Tensor]:
    """The bitwise op ``name``, computed by ``fn`` (a numpy ufunc, or a shift's values) and cast
    to torch's result dtype (the low bits: the same as casting the operands first); ``kernel``
    names torch's kernel in its refusal (``name`` if None)."""

    def op(a: Tensor, b: Any) -> Tensor:
        b = operand(b)
        dt = result_dtype(a, b)
        check_broadcast(a, b)
        _check_kernel(kernel or name, dt)
        out = wrap(fn(a._data, operand_in(b, dt)), dt)
        lay_out(out, a, b, common=dt)
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of bool or integer tensors (torch's ``{name}``)."
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
bitwise_left_shift = _bitwise(shift_left_values, "bitwise_left_shift", "lshift")
bitwise_right_shift = _bitwise(shift_right_values, "bitwise_right_shift", "rshift")


def shift_of_number(a: Any, b: Tensor, right: bool) -> Tensor:
    """``a << b`` (``a >> b`` if ``right``) of a Python number ``a`` and a tensor ``b``: the
    number is the left operand, wrapped in the result dtype (``1 << x``,
    ``bitwise_left_shift(3, x)``)."""
    op = bitwise_right_shift if right else bitwise_left_shift
    dt = result_dtype(b, a)
    return op(Tensor._wrap(np.asarray(operand_in(a, dt)), dt), b)


def _check_kernel(name: str, dt: Any) -> None:
    """torch has no bitwise kernel for a floating result, nor a shift for a bool one."""
    if dt.is_floating_point or (name in ("lshift", "rshift") and dt is dtypes.bool_):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dt.short}'")


def _never_run(node: OpNode, s: Saved, g: Grads) -> Grads:
    """The backward of a recorded bitwise op, which cannot exist: only a floating tensor requires
    grad, so a recorded op has a floating result and its kernel check raises before any node."""
    raise AssertionError("a bitwise op has no gradient")


def _bitwise_(fn: Values, name: str, kernel: str | None = None) -> Callable[[Tensor, Any], Tensor]:
    """The bitwise op ``name`` in place (``a &= b``), under torch's in-place contract: a leaf that
    requires grad is refused first, the result must fit ``a``'s shape and dtype, then the kernel
    (``kernel``, or ``name``) must exist."""

    def op_(a: Tensor, b: Any) -> Tensor:
        b = operand(b)
        dt = result_dtype(a, b)
        rb = operand_in(b, dt)

        def compute() -> Any:
            check_broadcast(a, b)
            check_result(a, np.broadcast_shapes(a._data.shape, np.shape(rb)), dt)
            _check_kernel(kernel or name, dt)
            return fn(a._data, rb)

        others = (b if isinstance(b, Tensor) else None,)
        return run_inplace(a, others, needs_grad(a, b), compute, dt, name, _never_run)

    op_.__name__ = op_.__qualname__ = name + "_"
    op_.__doc__ = f"``{name}`` in place (torch's ``{name}_``): one version bump."
    return op_


bitwise_and_ = _bitwise_(np.bitwise_and, "bitwise_and")
bitwise_or_ = _bitwise_(np.bitwise_or, "bitwise_or")
bitwise_xor_ = _bitwise_(np.bitwise_xor, "bitwise_xor")
bitwise_left_shift_ = _bitwise_(shift_left_values, "bitwise_left_shift", "lshift")
bitwise_right_shift_ = _bitwise_(shift_right_values, "bitwise_right_shift", "rshift")
