"""matmul of two 3-D operands whose batch sizes differ squeezes a batch of 1 that requires grad.

Before its broadcasting ``bmm``, torch's ``_matmul_impl`` squeezes such an operand to a matrix
(``SqueezeBackward1``) and starts again, so the product folds like a matrix times a batch: for
``(1, 1, 3) @ (2, 3, 4)`` the result is the ``mT`` of an ``mm`` (``TransposeBackward0``, a view),
for ``(1, 2, 3) @ (2, 3, 4)`` its contiguous copy (``CloneBackward0``). Without requires_grad, or
with equal batch sizes, it stays a ``bmm`` (``UnsafeViewBackward0``). The programs return each
result's node, strides, whether it is a view, and the gradients.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from support.differential import same

SHAPES = [
    ((1, 1, 3), (2, 3, 1)),
    ((1, 1, 3), (2, 3, 4)),
    ((1, 2, 3), (2, 3, 4)),
    ((2, 2, 3), (1, 3, 4)),
    ((2, 1, 3), (1, 3, 1)),
    ((1, 2, 3), (1, 3, 4)),
    ((2, 1, 3), (2, 3, 4)),
    ((1, 1, 1, 3), (2, 2, 3, 4)),
    ((1, 0, 3), (2, 3, 4)),
]


@pytest.mark.parametrize(
    ("a_grad", "b_grad", "b_transposed"), list(itertools.product([False, True], repeat=3))
)
@pytest.mark.parametrize(("a_shape", "b_shape"), SHAPES, ids=str)
def test_matmul_of_a_batch_of_one_follows_torchs_path(
    a_shape: tuple[int, ...],
    b_shape: tuple[int, ...],
    a_grad: bool,
    b_grad: bool,
    b_transposed: bool,
) -> None:
    def program(t: Any) -> Any:
        a = (t.arange(float(max(1, _size(a_shape)))) - 2)[: _size(a_shape)].reshape(a_shape)
        b_data = (t.arange(float(_size(b_shape))) * 0.5 - 1).reshape(b_shape)
        b = b_data.mT.contiguous().mT if b_transposed else b_data
        a.requires_grad_(a_grad)
        b.requires_grad_(b_grad)
        y = a @ b
        out = [y, y.grad_fn, y.stride(), y._base is not None]
        if y.requires_grad:
            y.sum().backward()
            # (clones: the version of a gradient laid out unlike its leaf is another question)
            out += [a.grad, b.grad if b.grad is None else b.grad.clone()]
        return out

    same(program)


def test_the_fuzzers_program() -> None:
    """Seed 502962: a chunk of a batch times the batch's ``mT``."""

    def program(t: Any) -> Any:
        t1 = t.tensor([[[3.0, 1.0, -1.5]], [[2.0, -1.0, -1.0]]], requires_grad=True)
        t10 = t1.chunk(2)[-1]
        y = t10 @ t1.mT
        y.sum().backward()
        return [y, y.grad_fn, y._base is not None, y.stride(), t1.grad]

    same(program)


def _size(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n
