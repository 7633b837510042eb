"""``pow_``: ``self **= exponent`` in place, the exponent a number or a tensor.

A number exponent is :func:`ownership.ops.inplace.pow_inplace`'s (``PowBackward0``). A tensor
exponent broadcasts to ``self``'s shape (never beyond it); the power is computed in the promoted
dtype of both and written back in ``self``'s, which must hold it (torch's "result type Float
can't be cast to the desired output type Long"); the node is ``PowBackward1``, saving the
original ``self`` (a clone, as torch saves it), the exponent and the result, and both operands
get gradients.

>>> import ownership
>>> x = ownership.tensor([2.0, 3.0, 4.0])
>>> x.pow_(ownership.tensor([2.0, 0.5, 1.0])), x._version
(tensor([4.0000, 1.7321, 4.0000]), 1)
"""

from __future__ import annotations

from typing import Any

from numpy.typing import NDArray

from ownership.core.autograd.node import OpNode
from ownership.core.inplace_rules import run_inplace
from ownership.core.tensor import Tensor
from ownership.ops import arithmetic as ar
from ownership.ops import power as pw
from ownership.ops.common import check_broadcast, needs_grad, operand, result_dtype
from ownership.ops.inplace import pow_inplace, snapshot
from ownership.ops.loop_order import Kernel


def _pow_tensor_(a: Tensor, e: Tensor) -> Tensor:
    dt = result_dtype(a, e)

    def compute() -> NDArray[Any]:
        check_broadcast(a, e)
        pw.check_bool_power(dt)
        return values(a._data.astype(dt.np, copy=False), e._data)

    def values(x: Any, y: Any) -> NDArray[Any]:  # torch's kernel: vectorized for floats only
        out: NDArray[Any] = pw._power(x, y, dt)
        return out

    def save(node: OpNode) -> None:
        ar.binary_node(node, a, e)
        node.save("exponent", e)  # torch's order: exponent, then self
        node.save("self", snapshot(a))  # the value before the write

    return run_inplace(
        a,
        (e,),
        needs_grad(a, e),
        compute,
        dt,
        "PowBackward1",
        pw.bw_pow_tensor,
        None,
        save,
        save_result=True,
        kernel=lambda: Kernel(values, vectorized=dt.is_floating_point),
        reads=(a._data, e._data),
    )


def pow_(a: Tensor, e: Any) -> Tensor:
    """``a **= e`` (``PowBackward0`` for a number exponent, ``PowBackward1`` for a tensor)."""
    e = operand(e)
    if isinstance(e, Tensor):
        return _pow_tensor_(a, e)
    return pow_inplace(a, e)
