"""``Tensor.repeat``: the tensor tiled ``repeats[d]`` times along each dim, in a new tensor.

``repeats`` has at least as many entries as the tensor has dims; extra leading entries add
leading dims (the tensor is read as if its shape had leading 1s). The result is a contiguous
copy (``RepeatBackward0``, saving ``repeats`` and the input's sizes); the gradient sums the
incoming gradient over the copies.

>>> import ownership
>>> ownership.tensor([1, 2]).repeat(2, 2)
tensor([[1, 2, 1, 2],
        [1, 2, 1, 2]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.storage import allocation_failed
from ownership.core.tensor import Tensor
from ownership.ops.common import needs_grad, run_op, wrap
from ownership.ops.op_table import ops


def _bw_repeat(node: OpNode, s: Saved, g: Grads) -> Grads:
    """torch's ``repeat_backward``: zeros when a repeat is 0; else the added leading dims summed
    one by one, then each repeated dim ``d`` read as ``(repeats[d], size[d])`` and the repeat
    axes summed in one reshape and one sum (nothing to do when every repeat is 1)."""
    repeats, shape = s["repeats"], s["self_sym_sizes"]
    grad = g[0]
    if 0 in repeats:
        return (wrap(np.zeros(shape, grad.dtype.np), grad.dtype),)
    added = len(repeats) - len(shape)
    for _ in range(added):
        grad = ops.sum(grad, (0,))
    grad_size: list[int] = []
    sum_dims: list[int] = []
    for repeat, size in zip(repeats[added:], shape, strict=True):
        if repeat != 1:
            grad_size.append(repeat)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(size)
    if sum_dims:
        grad = ops.sum(ops.reshape(grad, grad_size), tuple(sum_dims))
    return (grad,)


def repeat(t: Tensor, repeats: Sequence[int]) -> Tensor:
    """``t`` tiled ``repeats[d]`` times along each dim (a new contiguous tensor)."""
    reps = tuple(int(r) for r in repeats)
    for pos, r in enumerate(reps, 1):
        if not -(2**63) <= r < 2**63:  # torch reads each as a C long long (its message goes on
            raise TypeError(  # with a C++ stack trace)
                f"repeat(): argument 'repeats' failed to unpack the object at pos {pos} with "
                'error "Overflow when unpacking long long'
            )
    arr = t._data

    def kernel() -> Tensor:
        if len(reps) < arr.ndim:
            raise RuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of "
                "dimensions of tensor"
            )
        padded = (1,) * (len(reps) - arr.ndim) + arr.shape
        target = [n * r for n, r in zip(padded, reps, strict=True)]
        shown = ", ".join(map(str, target))
        for n in target:
            if n < 0:
                raise RuntimeError(
                    f"Trying to create tensor with negative dimension {n}: [{shown}]"
                )
        nbytes = math.prod(target) * arr.itemsize
        if nbytes >= 2**63:
            raise RuntimeError(f"Storage size calculation overflowed with sizes=[{shown}]")
        try:  # all-1 repeats: a "K" copy
            return wrap(np.array(np.tile(arr, reps), order="C"), t.dtype)
        except MemoryError:
            raise allocation_failed(nbytes) from None

    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        kernel,
        "RepeatBackward0",
        _bw_repeat,
        {"repeats": reps, "self_sym_sizes": tuple(arr.shape)} if recorded else None,
    )
