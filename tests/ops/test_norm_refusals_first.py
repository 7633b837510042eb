"""``torch.norm`` is a Python function: the orders it sends to ``linalg.matrix_norm`` are
refused before any edge is read (a stale view gets the order's error), while the vector norm's
kernel reads the edges before its own checks (a stale view's error first).
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

CALLS: dict[str, Any] = {
    "bogus order": lambda t, v: t.norm(v, p="bogus"),
    "nuc of a vector": lambda t, v: t.norm(v, p="nuc"),
    "fro over a bad dim": lambda t, v: t.norm(v, p="fro", dim=5),
    "2 over a bad dim": lambda t, v: t.norm(v, p=2, dim=5),
    "int dtype": lambda t, v: t.norm(v, dtype=t.int64),
    "default": lambda t, v: t.norm(v),
    "method, bogus order": lambda t, v: v.norm(p="bogus"),
}


@pytest.mark.parametrize("call", CALLS)
def test_norm_refuses_before_or_after_the_stale_view_error_as_torch(call: str) -> None:
    def program(t):
        a = t.ones(2, 3, requires_grad=True).clone()
        v = a.unbind(0)[0]
        a.mul_(2)
        return CALLS[call](t, v)

    same(program)
