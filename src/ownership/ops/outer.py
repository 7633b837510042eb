"""``outer``: the outer product of two vectors, ``out[i, j] = self[i] * vec2[j]``.

torch computes it as ``self.reshape(n, 1) * vec2``, so its node is that product's
(``MulBackward0``, saving the reshaped ``self`` and ``vec2``), its dtype is the product's
promotion, and its gradients are the product's. Both operands must be 1-d.

>>> import ownership
>>> ownership.outer(ownership.tensor([1.0, 2.0]), ownership.tensor([3.0, 4.0, 5.0]))
tensor([[ 3.,  4.,  5.],
        [ 6.,  8., 10.]])
"""

from __future__ import annotations

from ownership.core.tensor import Tensor
from ownership.ops.common import as_tensor_arg
from ownership.ops.op_table import ops


def outer(t: Tensor, vec2: Tensor) -> Tensor:
    """``t.reshape(len(t), 1) * vec2``: torch's refusal of an operand that is not 1-d first (a
    torch ``vec2`` is read as a constant)."""
    vec2 = as_tensor_arg(vec2)
    for name, v in (("self", t), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    out: Tensor = ops.mul(ops.reshape(t, (t._data.shape[0], 1)), vec2)
    return out
