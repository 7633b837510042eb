"""Allocations no machine can give, run under torch and ownership.

torch asks its CPU allocator for a result's bytes and, refused, raises a ``RuntimeError`` naming
them; numpy raises its own ``MemoryError``, which must never reach a learner. Each program below
asks for 2**57 bytes or more, more than any process can address (2**47 bytes on x86-64 with
four-level page tables, 2**56 with five), so the refusal depends neither on the machine's
memory nor on how the kernel overcommits it.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

N = 2**57  # elements: 2**59 bytes of float32


def _big(t: Any) -> Any:
    """A float32 tensor of N elements that holds one: an expanded view."""
    return t.zeros(1).expand(N)


PROGRAMS: dict[str, Any] = {
    # factories
    "zeros": lambda t: t.zeros(N),
    "ones": lambda t: t.ones(N),
    "empty": lambda t: t.empty(N),
    "full": lambda t: t.full((N,), 1.0),
    "arange": lambda t: t.arange(2**57),
    "rand": lambda t: t.rand(N),
    "randn": lambda t: t.randn(N),
    "eye": lambda t: t.eye(2**29),
    "zeros_like": lambda t: t.zeros_like(_big(t)),
    "empty_like": lambda t: t.empty_like(_big(t)),
    "ones_like": lambda t: t.ones_like(_big(t)),
    "randn_like": lambda t: t.randn_like(_big(t)),
    "new_zeros": lambda t: t.zeros(1).new_zeros(N),
    # copies of a view that holds one element
    "clone": lambda t: _big(t).clone(),
    "contiguous": lambda t: _big(t).contiguous(),
    "to_double": lambda t: _big(t).double(),
    "cat": lambda t: t.cat([_big(t), _big(t)]),
    "stack": lambda t: t.stack([_big(t), _big(t)]),
    # results of ops, methods and operators
    "add": lambda t: _big(t) + 1,
    "mul": lambda t: _big(t) * _big(t),
    "pow": lambda t: _big(t) ** 2,
    "neg": lambda t: -_big(t),
    "greater": lambda t: _big(t) > 0,
    "exp": lambda t: _big(t).exp(),
    "abs": lambda t: _big(t).abs(),
    "sigmoid": lambda t: t.sigmoid(_big(t)),
    "relu": lambda t: t.relu(_big(t)),
    "matmul": lambda t: t.zeros(1, 1).expand(2**29, 1) @ t.zeros(1, 1).expand(1, 2**29),
    "where": lambda t: t.where(t.ones(1, dtype=t.bool).expand(N), _big(t), 0.0),
    "sum": lambda t: t.zeros(1, 1).expand(N, 2).sum(1),
    "index": lambda t: t.zeros(3)[t.zeros(1, dtype=t.long).expand(N)],
    "repeat": lambda t: t.zeros(2).repeat(2**56),
    "resize_": lambda t: t.empty(0).resize_(N),
}


@pytest.mark.parametrize("program", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_an_allocation_beyond_any_machine_is_torchs_refusal(program: Any) -> None:
    same(program)
