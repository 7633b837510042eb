"""Module.to / float / double: floating parameters and buffers convert, the rest stays."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def _layer(t: ModuleType) -> Any:
    lin = t.nn.Linear(2, 1)
    with t.no_grad():
        lin.weight.copy_(t.tensor([[1.0, -2.0]]))
        lin.bias.fill_(0.5)
    lin.register_buffer("count", t.zeros((), dtype=t.int64))
    lin.register_buffer("mean", t.zeros(2))
    lin.note = t.ones(2)  # a plain attribute: the module does not own it
    return lin


@pytest.mark.parametrize("how", ["to", "double", "keyword"])
def test_floating_state_converts_and_parameters_keep_their_identity(how: str) -> None:
    def program(t: ModuleType) -> Any:
        lin = _layer(t)
        weight = lin.weight
        (lin(t.ones(2)) ** 2).sum().backward()
        converted = {
            "to": lambda: lin.to(t.float64),
            "double": lin.double,
            "keyword": lambda: lin.to(device="cpu", dtype=t.float64),
        }[how]()
        return {
            "same module": converted is lin,
            "same parameter": lin.weight is weight,
            "dtypes": [str(getattr(lin, n).dtype) for n in ("weight", "bias", "count", "mean")],
            "grad": lin.weight.grad,
            "plain attribute": lin.note,
            "output": lin(t.ones(2, dtype=t.float64)),
        }

    same(program)


def test_an_integer_dtype_is_refused() -> None:
    same(lambda t: t.nn.Linear(2, 1).to(t.int64))


def test_a_device_alone_changes_nothing() -> None:
    same(lambda t: _layer(t).to("cpu").weight)
