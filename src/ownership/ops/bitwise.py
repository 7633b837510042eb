"""Bitwise ops: ``&``, ``|`` and ``^`` of bool and integer tensors (and ``&=``, ``|=``, ``^=`` in
place), never differentiable.

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
from ownership.autograd.node import Grads, OpNode, Saved
from ownership.inplace_rules import check_result, run_inplace
from ownership.ops.common import check_broadcast, needs_grad, operand, result_dtype, wrap
from ownership.ops.python_numbers import operand_in


def _bitwise(fn: np.ufunc, name: str) -> Callable[[Tensor, Any], Tensor]:
    """The bitwise op ``name`` (torch's kernel name), computed by numpy's ``fn`` and cast to
    torch's result dtype (the low bits: the same as casting the operands first)."""

    def op(a: Tensor, b: Any) -> Tensor:
        b = operand(b)
        dt = result_dtype(a, b)
        check_broadcast(a, b)
        _check_kernel(name, dt)
        return wrap(fn(a._data, operand_in(b, dt)), dt)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of bool or integer tensors (torch's ``{name}``)."
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")


def _check_kernel(name: str, dt: Any) -> None:
    """torch has no bitwise kernel for a floating result."""
    if dt.is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dt.short}'")


def _never_run(node: OpNode, s: Saved, g: Grads) -> Grads:
    """The backward of a recorded bitwise op, which cannot exist: only a floating tensor requires
    grad, so a recorded op has a floating result and its kernel check raises before any node."""
    raise AssertionError("a bitwise op has no gradient")


def _bitwise_(fn: np.ufunc, name: str) -> Callable[[Tensor, Any], Tensor]:
    """The bitwise op ``name`` in place (``a &= b``), under torch's in-place contract: a leaf that
    requires grad is refused first, the result must fit ``a``'s shape and dtype, then the kernel
    must exist."""

    def op_(a: Tensor, b: Any) -> Tensor:
        b = operand(b)
        dt = result_dtype(a, b)
        rb = operand_in(b, dt)

        def compute() -> Any:
            check_broadcast(a, b)
            check_result(a, np.broadcast_shapes(a._data.shape, np.shape(rb)), dt)
            _check_kernel(name, dt)
            return fn(a._data, rb)

        others = (b if isinstance(b, Tensor) else None,)
        return run_inplace(a, others, needs_grad(a, b), compute, dt, name, _never_run)

    op_.__name__ = op_.__qualname__ = name + "_"
    op_.__doc__ = f"``{name}`` in place (torch's ``{name}_``): one version bump."
    return op_


bitwise_and_ = _bitwise_(np.bitwise_and, "bitwise_and")
bitwise_or_ = _bitwise_(np.bitwise_or, "bitwise_or")
bitwise_xor_ = _bitwise_(np.bitwise_xor, "bitwise_xor")
