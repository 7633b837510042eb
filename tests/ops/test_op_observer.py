"""Every op call passes one observer point, :func:`ownership.core.op_registry.watch` (the doctor's):
a Tensor method, a ``torch`` function and an operator alike; ``unwatch`` puts the ops back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import ownership
from ownership.core import op_registry


def test_every_op_call_passes_the_one_observer_point() -> None:
    seen: list[str] = []

    def observer(name: str, op: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        seen.append(name)
        return op(*args, **kwargs)

    x = ownership.ones(2)
    op_registry.watch(observer)
    try:
        x.mul(2)
        ownership.mul(x, 2)
        _ = x * 2
        x.mul_(2)
        x *= 2
        x.sum()
        with pytest.raises(RuntimeError, match="watched already"):
            op_registry.watch(observer)
    finally:
        op_registry.unwatch()
    assert seen == ["mul", "mul", "mul", "mul_", "mul_", "sum"]
    assert x.tolist() == [4.0, 4.0]
    x.mul(2)
    _ = x * 2
    assert len(seen) == 6
