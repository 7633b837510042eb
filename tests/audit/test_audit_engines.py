"""The audit gives the same table for the same model built with either engine."""

from __future__ import annotations

from dataclasses import astuple
from types import ModuleType
from typing import Any

import pytest

from ownership.auditing import audit

from support import nn_models
from support.differential import same

BUILDERS = {
    "nested": nn_models.nested,
    "tied": nn_models.tied,
    "mlp": nn_models.mlp,
    "batchnorm": lambda t: t.nn.BatchNorm1d(4),
    "batchnorm without stats": lambda t: t.nn.BatchNorm1d(
        4, affine=False, track_running_stats=False
    ),
}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_same_rows_and_flags(name: str) -> None:
    def program(t: ModuleType) -> Any:
        table = audit(BUILDERS[name](t))
        return (
            [astuple(row) for row in table],
            [(f.name, f.reason) for f in table.flags],
            str(table),
        )

    same(program)


def test_nested_model_rows() -> None:
    def program(t: ModuleType) -> Any:
        return [(r.name, r.kind, r.in_state_dict, r.rule) for r in audit(nn_models.nested(t))][:7]

    assert same(program) == [
        ("head_bias", "parameter", True, "optimizer only, under no_grad"),
        ("first.scale", "parameter", True, "optimizer only, under no_grad"),
        ("first.calls", "buffer", True, "the module's forward, under no_grad"),
        ("first.cache", "non-persistent buffer", False, "the module's forward, under no_grad"),
        ("first.last", "plain tensor attribute", False, "nobody: not saved, not trained"),
        ("first.linear.weight", "parameter", True, "optimizer only, under no_grad"),
        ("first.linear.bias", "parameter", True, "optimizer only, under no_grad"),
    ]


def test_running_counter_registered_as_a_parameter_is_flagged() -> None:
    """The unit's third trap, in both engines: the counter gets a gradient and an update."""

    def program(t: ModuleType) -> Any:
        class Wrong(t.nn.Module):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                super().__init__()
                self.linear = t.nn.Linear(2, 1)
                self.count = t.nn.Parameter(t.zeros(()))

            def forward(self, x: Any) -> Any:
                self.count.data += x.shape[0]  # bumps the counter outside autograd...
                return self.linear(x) * (self.count / self.count)  # ...yet it is in the graph

        model = Wrong()
        opt = t.optim.SGD(model.parameters(), lr=0.1)
        model(t.ones(3, 2)).sum().backward()
        opt.step()
        return model.count, model.count.grad, [f.name for f in audit(model).flags]

    result = same(program)
    assert result[2] == ["count"]
