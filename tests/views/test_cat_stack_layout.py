"""The layout of ``cat``'s and ``stack``'s results, as torch's kernels lay them out.

``cat`` allocates its result in the memory format its inputs suggest
(``cat_compute_output_memory_format``): row-major as soon as one input suggests
``contiguous_format`` (every input of rank other than 4 or 5 does, a transposed matrix too), a
channels-last format when every input suggests that one. ``stack`` along an existing dim is
``cat`` along it, viewed with the new dim split off (so its strides are that view's); after the
last dim it is ``cat`` of the inputs unsqueezed there.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same


def _x(t: Any) -> Any:
    return t.tensor([[-0.5, -2.0, -1.0], [0.0, -0.0, -1.0]], requires_grad=True)


def _nchw(t: Any) -> Any:
    """A rank-4 tensor laid out channels-last (its strides suggest ``channels_last``)."""
    return t.arange(12.0).reshape(1, 2, 2, 3).permute(0, 3, 1, 2)


JOINS: dict[str, Any] = {
    "fuzz program 287": lambda t: t.stack([_x(t).transpose(0, -1)[::2]] * 2),
    "cat of transposes": lambda t: t.cat([_x(t).t(), _x(t).t()]),
    "cat of transposes, dim 1": lambda t: t.cat([_x(t).t(), _x(t).t()], 1),
    "cat of a transpose and a row-major": lambda t: t.cat([_x(t).t(), _x(t).t().contiguous()]),
    "cat of strided slices": lambda t: t.cat([_x(t)[:, ::2], _x(t)[:, ::2]]),
    "cat of permuted 3-d": lambda t: t.cat([t.ones(2, 3, 4).permute(2, 0, 1)] * 2, 1),
    "cat of an expanded row": lambda t: t.cat([_x(t)[:1].expand(3, 3), _x(t)]),
    "cat of channels-last": lambda t: t.cat([_nchw(t), _nchw(t)], 1),
    "cat of channels-last and row-major": lambda t: t.cat([_nchw(t), _nchw(t).contiguous()]),
    "cat of a 1-d empty and a transpose": lambda t: t.cat([t.zeros(0), _x(t).t()]),
    "cat of int and float": lambda t: t.cat([t.tensor([[1, 2, 3]]), _x(t)]),
    "stack of transposes": lambda t: t.stack([_x(t).t(), _x(t).t()]),
    "stack of transposes, dim 1": lambda t: t.stack([_x(t).t(), _x(t).t()], 1),
    "stack of transposes, after the last dim": lambda t: t.stack([_x(t).t(), _x(t).t()], 2),
    "stack of strided slices": lambda t: t.stack([_x(t)[:, ::2], _x(t)[:, ::2]]),
    "stack of an expanded row": lambda t: t.stack([_x(t)[:1].expand(3, 3)] * 2),
    "stack of size-1 dims": lambda t: t.stack([_x(t)[:1].t(), _x(t)[:1].t()]),
    "stack of channels-last, dim 1": lambda t: t.stack([_nchw(t), _nchw(t)], 1),
    "stack of channels-last, after the last dim": lambda t: t.stack([_nchw(t)[0]] * 2, 3),
    "stack of empty tensors": lambda t: t.stack([t.zeros(0, 3), t.zeros(0, 3)], 1),
    "stack of 0-d": lambda t: t.stack([t.tensor(1.0), t.tensor(2.0)]),
    "stack of bool, dim -1": lambda t: t.stack([t.tensor([True]), t.tensor([False])], -1),
}


@pytest.mark.parametrize("join", JOINS.values(), ids=JOINS.keys())
def test_the_result_is_laid_out_as_torchs_cat_lays_it_out(join: Any) -> None:
    def program(t: Any) -> Any:
        y = join(t)
        return y, y.stride(), y.is_contiguous(), y._base is None, y.grad_fn

    same(program)


def test_the_gradients_of_a_stack_of_transposes() -> None:
    def program(t: Any) -> Any:
        x = _x(t)
        y = t.stack([x.t(), x.t() * 2], 1)
        (y * t.arange(12.0).reshape(3, 2, 2)).sum().backward()
        return y.grad_fn, grad_of(x)

    same(program)
