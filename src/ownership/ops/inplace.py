"""The in-place arithmetic (``add_``, ``sub_``, ``mul_``, ``div_``, ``a **= e``): for each, what it
computes, saves and names its node, and when it may write straight into the tensor's array.

Every one of them writes through :func:`ownership.inplace_rules.run_inplace`, the in-place
contract, which makes torch's checks in torch's order, writes, bumps the version once and
rewrites the history. The elementwise functions in place are in ``ownership.ops.inplace_unary``,
the fills and copies in ``ownership.ops.inplace_fills``; both save the value before the write with
``snapshot``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import dtypes
from ownership._tensor import Tensor
from ownership.autograd.graph import CLONING
from ownership.autograd.node import BackwardFn, OpNode
from ownership.inplace_rules import check_no_overlap, check_result, run_inplace, written
from ownership.loop_order import Kernel, aliased
from ownership.op_registry import OPS
from ownership.ops import arithmetic as ar
from ownership.ops import power as pw
from ownership.ops.common import (
    check_broadcast,
    needs_grad,
    needs_grad_with,
    operand,
    raw,
    result_dtype,
)
from ownership.ops.python_numbers import int_parameter, operand_in, scaled

# numpy's ufuncs of the optimizer's updates, bound once: numpy's module ``__getattr__`` keeps
# CPython from specializing each ``np.`` read
_add, _subtract, _multiply, _may_share = np.add, np.subtract, np.multiply, np.may_share_memory


def snapshot(t: Tensor) -> Tensor:
    """The value before an in-place write, as torch saves it: ``self.clone()`` (``CloneBackward0``)."""
    return OPS["clone"](t)  # type: ignore[no-any-return]


def _tensors(*operands: Any) -> tuple[Tensor | None, ...]:
    """The operands as the contract takes them: a tensor, or None for a number."""
    return tuple(o if isinstance(o, Tensor) else None for o in operands)


def direct_write(a: Tensor, b: Any, alpha: Any = 1) -> bool:
    """Whether ``a op= alpha * b`` (op ``+``, ``-`` or ``*``) may be computed straight into
    ``a``'s array, bit for bit as into a new one (IEEE ``+ - *`` round each element alike).

    So it is when ``a``'s array is writable and holds its float dtype, ``b`` is a tensor of that
    numpy dtype and of ``a``'s shape or a Python float (a weak scalar: numpy's loop keeps
    ``a``'s dtype), and ``alpha`` is 1 or a Python float: the result has ``a``'s shape and
    dtype, and nothing raises (numpy's own overlap handling keeps ``a += a`` exact).
    """
    arr = a._data
    dt = arr.dtype
    if isinstance(b, Tensor):  # the commonest operand first
        other = b._data
        other_dt = other.dtype  # numpy's dtypes of the builtin types are mostly one object each
        if other.shape != arr.shape or (other_dt is not dt and other_dt != dt):
            return False
    elif type(b) is not float:
        return False
    if not ((type(alpha) is int and alpha == 1) or type(alpha) is float):
        return False
    # a read-only array (memory of bytes): the general path's refusal
    np_dt = a.dtype.np
    return dt.kind == "f" and (dt is np_dt or dt == np_dt) and arr.flags.writeable


def write_unrecorded(a: Tensor, b: Any, alpha: Any, ufunc: np.ufunc, name: str) -> Tensor | None:
    """``a = ufunc(a, alpha * b)`` in place (``a += alpha * b``, ``-=``, or ``a *= b`` with
    ``alpha`` 1) when it records nothing (grad mode off, or no operand requires grad) and may
    write straight into ``a`` (:func:`direct_write`'s conditions, asked on the arrays read once:
    test_inplace_direct_write checks the two answer alike); None, having done nothing, otherwise
    (always while an ``allow_mutation_on_saved_tensors`` block is open: the general contract
    then clones the saved tensors the write changes).

    The optimizer's update ``p -= lr * p.grad`` under no_grad, and SGD's: of the general
    contract's steps (:func:`~ownership.inplace_rules.run_inplace`) only the overlap check can
    then refuse (nothing is recorded, the value has ``a``'s shape and dtype), made here only
    when it could refuse; then the same write straight into ``a``'s array and bump."""
    if needs_grad_with(a, b) or CLONING:  # CLONING: a write must clone saved tensors first
        return None
    arr = a._data
    dt = arr.dtype
    other: Any
    if isinstance(b, Tensor):  # the commonest operand first (the optimizer's update)
        other = b._data
        other_dt = other.dtype  # numpy's dtypes of the builtin types are mostly one object each
        if other.shape != arr.shape or (other_dt is not dt and other_dt != dt):
            return None
    elif type(b) is float:
        other = b
    else:
        return None
    if type(alpha) is int:
        if alpha != 1:
            return None
        value = other
    elif type(alpha) is float:
        value = other if alpha == 1 else other * alpha
    else:
        return None
    np_dt = a.dtype.np
    flags = arr.flags
    if dt.kind != "f" or (dt is not np_dt and dt != np_dt) or not flags.writeable:
        return None  # a read-only array (memory of bytes): the general path's refusal
    # the overlap rule asked only when it could refuse: an element written twice needs a 0
    # stride, an input overlapping ``a`` shares its memory (two arrays that each own their
    # memory never do: the common update's)
    if 0 in arr.strides:
        check_no_overlap(a, (b,) if other is not b else ())
        if other is not b and aliased(arr, (other,)):
            return None  # the general contract writes in torch's loop order
    elif (
        other is not b
        and b is not a
        and (arr is other or not (flags.owndata and other.flags.owndata))
        and _may_share(arr, other)
    ):
        check_no_overlap(a, (b,))
        if aliased(arr, (other,)):
            return None  # the general contract writes in torch's loop order
    ufunc(arr, value, arr)  # into ``a``'s array (the positional ``out``)
    written(a, name)
    return a


def _add_scaled_(
    a: Tensor, b: Any, alpha: Any, ufunc: np.ufunc, name: str, backward: BackwardFn
) -> Tensor:
    """``a = ufunc(a, alpha * b)`` in place by the general contract: what ``add_`` and ``sub_``
    share when :func:`write_unrecorded` declines."""
    b = operand(b)
    if ufunc is _subtract:
        ar.check_bool_sub(a, b)  # torch's first refusal (a float tensor's write passes it)
    dt = result_dtype(a, b)
    rb = operand_in(b, dt)

    def compute() -> NDArray[Any]:
        check_broadcast(a, b)
        other = rb
        if not (alpha == 1 and type(alpha) is int):
            # torch checks alpha after the result's shape and dtype (run_inplace checks them after)
            check_result(a, np.broadcast_shapes(a._data.shape, np.shape(rb)), dt)
            other = scaled(rb, alpha, dt, negated=ufunc is _subtract)
        out: NDArray[Any] = ufunc(a._data, other)
        return out

    def write(into: NDArray[Any]) -> None:  # only where alpha is 1 or a float (direct_write)
        ufunc(into, rb if alpha == 1 else rb * alpha, out=into)

    def kernel(x: Any, y: Any) -> Any:  # torch's add kernel: self + alpha * other
        if alpha == 1 and type(alpha) is int:
            return ufunc(x, y)
        return ufunc(x, scaled(y, alpha, dt, negated=ufunc is _subtract))

    return run_inplace(
        a,
        (b if isinstance(b, Tensor) else None,),  # _tensors(b), without the call
        needs_grad(a, b),
        compute,
        dt,
        name,
        backward,
        {"alpha": alpha},
        lambda node: ar.binary_node(node, a, b),
        write=write if direct_write(a, b, alpha) else None,
        kernel=Kernel(kernel, (a._data, rb), vectorized=dt is not dtypes.bool_),
    )


def add_(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a += alpha * b`` (``AddBackward0``)."""
    done = write_unrecorded(a, b, alpha, _add, "AddBackward0")
    return done if done is not None else _add_scaled_(a, b, alpha, _add, "AddBackward0", ar.bw_add)


def sub_(a: Tensor, b: Any, *, alpha: float = 1) -> Tensor:
    """``a -= alpha * b`` (``SubBackward0``)."""
    done = write_unrecorded(a, b, alpha, _subtract, "SubBackward0")
    return (
        done
        if done is not None
        else _add_scaled_(a, b, alpha, _subtract, "SubBackward0", ar.bw_sub)
    )


def _save_binary_inplace(a: Tensor, b: Any) -> Callable[[OpNode], None]:
    def save(node: OpNode) -> None:
        ar.save_binary(node, a, b, lambda: snapshot(a))  # the value before the write

    return save


def mul_(a: Tensor, b: Any) -> Tensor:
    """``a *= b`` (``MulBackward0``; the original ``a`` is kept if ``b`` needs its gradient)."""
    done = write_unrecorded(a, b, 1, _multiply, "MulBackward0")
    if done is not None:
        return done
    b = operand(b)
    dt = result_dtype(a, b)
    rb = operand_in(b, dt)

    def compute() -> NDArray[Any]:
        check_broadcast(a, b)
        out: NDArray[Any] = a._data * rb
        return out

    def write(into: NDArray[Any]) -> None:
        np.multiply(into, rb, out=into)

    return run_inplace(
        a,
        _tensors(b),
        needs_grad(a, b),
        compute,
        dt,
        "MulBackward0",
        ar.bw_mul,
        None,
        _save_binary_inplace(a, b),
        write=write if direct_write(a, b) else None,
        kernel=Kernel(np.multiply, (a._data, rb), vectorized=dt is not dtypes.bool_),
    )


def div_(a: Tensor, b: Any) -> Tensor:
    """``a /= b`` (``DivBackward0``)."""
    b = operand(b)
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        dt = dtypes.get_default_dtype()

    def compute() -> NDArray[Any]:
        check_broadcast(a, b)
        out: NDArray[Any] = np.true_divide(a._data, raw(b))
        return out

    def save(node: OpNode) -> None:
        node.save("other", b if isinstance(b, Tensor) else ar.wrapped_scalar(b))
        if ar.binary_node(node, a, b)[1]:
            node.save("self", snapshot(a))
        else:
            node._ctx["self"] = None

    return run_inplace(
        a,
        _tensors(b),
        needs_grad(a, b),
        compute,
        dt,
        "DivBackward0",
        ar.bw_div,
        None,
        save,
        kernel=Kernel(np.true_divide, (a._data, raw(b)), vectorized=True),
    )


def pow_inplace(a: Tensor, e: Any) -> Tensor:
    """``a **= e`` for a number exponent (``PowBackward0``); ``pow_`` with a tensor exponent is
    :func:`ownership.ops.power_inplace.pow_`'s."""
    e = operand(e)
    pw.check_integer_power(a, e)
    dt = result_dtype(a, e)

    def save(node: OpNode) -> None:
        node.save("self", snapshot(a))

    return run_inplace(
        a,
        (),
        needs_grad(a),
        lambda: np.power(a._data, e),
        dt,
        "PowBackward0",
        pw.bw_pow_scalar,
        {"exponent": e},
        save,
        check_args=lambda: int_parameter(e, dt),
    )
