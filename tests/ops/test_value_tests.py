"""``isnan``, ``isinf``, ``isfinite`` and ``logical_not``: bool tensors, never recorded, for every
dtype (an integer or bool tensor holds no NaN nor infinity), as functions and as methods."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

TESTS = ("isnan", "isinf", "isfinite", "logical_not")
SPECIAL = [1.5, float("nan"), float("inf"), -float("inf"), 0.0, -0.0, -2.0]


def _sources(t: Any) -> dict[str, Any]:
    return {
        "float32": t.tensor(SPECIAL),
        "float64": t.tensor(SPECIAL, dtype=t.float64),
        "int64": t.tensor([0, 3, -4]),
        "bool": t.tensor([True, False]),
        "0-d": t.tensor(float("nan")),
        "empty": t.zeros(0, 2),
        "transposed": t.tensor([SPECIAL[:6]]).reshape(2, 3).t(),
        "requires grad": t.tensor(SPECIAL, requires_grad=True),
        "non-leaf": t.tensor(SPECIAL, requires_grad=True) * 2,
    }


@pytest.mark.parametrize("name", TESTS)
def test_each_test_is_torchs(name: str) -> None:
    def program(t: Any) -> Any:
        out = []
        for source in _sources(t).values():
            result = getattr(t, name)(source)
            method = getattr(source, name)()
            out.append([result, result.stride(), result.requires_grad, result.grad_fn, method])
        return out

    same(program)


@pytest.mark.parametrize("name", TESTS)
def test_each_test_refuses_what_torch_refuses(name: str) -> None:
    same(lambda t: getattr(t, name)([1.0, 2.0]))
    same(lambda t: getattr(t, name)())
