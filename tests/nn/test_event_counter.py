"""EventCounter: the self-test's layer that keeps a running event counter in a buffer.

ownership ships it as ``ownership.nn.EventCounter``; torch has no such layer, so the torch side
of each differential test is the same layer written against ``torch.nn`` (the twin below).
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import torch

from support import nn_models
from support.differential import same

SELF = os.environ.get("OWNERSHIP_DIFF_SELF") == "1"


class EventCounter(torch.nn.Module):
    """The torch twin: wraps a module and counts the samples it has seen in a ``count`` buffer."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            self.count.add_(x.shape[0] if x.dim() > 1 else 1)
        return self.module(x)


def counter(t: ModuleType, module: Any) -> Any:
    if t is torch:
        return EventCounter(module)
    return t.nn.EventCounter(module)


def counted_mlp(t: ModuleType) -> Any:
    return counter(t, nn_models.mlp(t))


def test_count_is_a_persistent_buffer_not_a_parameter() -> None:
    def program(t: ModuleType) -> Any:
        model = counted_mlp(t)
        return (
            [n for n, _ in model.named_parameters()],
            [(n, b) for n, b in model.named_buffers()],
            list(model.state_dict()),
            model.count.requires_grad,
        )

    assert same(program)[1][0][0] == "count"


def test_forward_counts_samples_under_no_grad_and_never_gets_a_gradient() -> None:
    def program(t: ModuleType) -> Any:
        model = counted_mlp(t)
        opt = t.optim.SGD(model.parameters(), lr=0.1)
        for batch in (4, 1, 3):
            opt.zero_grad()
            loss = model(t.ones(batch, 3)).pow(2).sum()
            loss.backward()
            opt.step()
        model(t.ones(3))  # one sample, 1-D
        return model.count, model.count.grad, model.count.grad_fn, model.count._version, loss

    result = same(program)
    assert result[0].values.item() == 9 and result[3] == 4


def test_count_travels_with_state_dict() -> None:
    def program(t: ModuleType) -> Any:
        model = counted_mlp(t)
        model(t.ones(5, 3))
        other = counted_mlp(t)
        other.load_state_dict(model.state_dict())
        return other.count, other.count._version

    same(program)


def test_repr() -> None:
    same(lambda t: repr(counter(t, t.nn.Linear(2, 1))))


def test_audit_states_the_counter_rule() -> None:
    from ownership.auditing import RULE_BUFFER, audit

    def program(t: ModuleType) -> Any:
        return [
            (r.name, r.kind, r.optimizer_mutates, r.rule, r.flags) for r in audit(counted_mlp(t))
        ]

    rows = same(program)
    assert rows[0] == ("count", "buffer", False, RULE_BUFFER, ())
