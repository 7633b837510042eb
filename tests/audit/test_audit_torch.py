"""The audit on real ``torch.nn.Module``s: it must state torch's own ownership facts."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from torch import nn

from ownership.auditing import (
    RULE_BUFFER,
    RULE_FROZEN,
    RULE_OPTIMIZER,
    RULE_UNOWNED,
    AuditRow,
    AuditTable,
    audit,
)


def test_batchnorm1d_parameters_and_buffers() -> None:
    table = audit(nn.BatchNorm1d(3))
    assert isinstance(table, AuditTable) and isinstance(table, list)
    assert table == [
        AuditRow("weight", "parameter", (3,), True, True, True, RULE_OPTIMIZER),
        AuditRow("bias", "parameter", (3,), True, True, True, RULE_OPTIMIZER),
        AuditRow("running_mean", "buffer", (3,), False, False, True, RULE_BUFFER),
        AuditRow("running_var", "buffer", (3,), False, False, True, RULE_BUFFER),
        AuditRow("num_batches_tracked", "buffer", (), False, False, True, RULE_BUFFER),
    ]
    assert table.flags == []


def test_rows_follow_state_dict_order_in_a_tree() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 1))
    names = [row.name for row in audit(model)]
    assert names == list(model.state_dict())


class Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(3, 3, bias=False)
        self.decoder = nn.Linear(3, 3)
        self.decoder.weight = self.encoder.weight


def test_tied_weight_is_listed_and_flagged_under_both_names() -> None:
    model = Tied()
    table = audit(model)
    assert [r.name for r in table] == ["encoder.weight", "decoder.weight", "decoder.bias"]
    assert [r.name for r in table] == list(model.state_dict())
    assert len(list(model.parameters())) == 2
    assert all(r.optimizer_mutates and r.in_state_dict for r in table)
    flagged = [(f.name, f.reason.split(";")[0]) for f in table.flags]
    assert flagged == [
        ("encoder.weight", "tied: the same tensor as 'decoder.weight'"),
        ("decoder.weight", "tied: the same tensor as 'encoder.weight'"),
    ]


class Counting(nn.Module):
    """Holds its event counter as a plain tensor attribute: the mistake the audit flags."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(2, 2)
        self.count = torch.zeros((), dtype=torch.long)
        self.register_buffer("scratch", torch.zeros(2), persistent=False)


def test_plain_tensor_attribute_is_a_row_and_a_flag() -> None:
    model = Counting()
    table = audit(model)
    assert "count" not in model.state_dict()
    assert "count" not in dict(model.named_buffers())
    row = table.row("count")
    assert row == AuditRow(
        "count", "plain tensor attribute", (), False, False, False, RULE_UNOWNED, row.flags
    )
    assert [f.name for f in table.flags] == ["count"]
    assert "state_dict() drops it" in table.flags[0].reason
    scratch = table.row("scratch")
    assert (scratch.kind, scratch.in_state_dict, scratch.rule) == (
        "non-persistent buffer",
        False,
        RULE_BUFFER,
    )
    assert [r.name for r in table] == ["scratch", "count", "linear.weight", "linear.bias"]


class Mistakes(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2))
        self.running_mean = nn.Parameter(torch.zeros(2))
        self.step_count = nn.Parameter(torch.zeros(()), requires_grad=False)
        self.frozen = nn.Parameter(torch.ones(2), requires_grad=False)
        self.register_buffer("needs_grad", torch.zeros(2, requires_grad=True))


def test_parameter_mistakes_are_flagged() -> None:
    table = audit(Mistakes())
    reasons = {f.name: f.reason for f in table.flags}
    assert set(reasons) == {"running_mean", "step_count", "frozen", "needs_grad"}
    assert reasons["running_mean"].startswith("running statistic registered as a Parameter")
    assert reasons["step_count"].startswith("running statistic registered as a Parameter")
    assert reasons["frozen"].startswith("Parameter with requires_grad=False")
    assert reasons["needs_grad"].startswith("buffer that requires grad")
    assert table.row("frozen").rule == RULE_FROZEN
    assert not table.row("frozen").optimizer_mutates
    assert table.row("running_mean").optimizer_mutates


def test_optimizer_mutates_exactly_what_sgd_changes() -> None:
    model = Mistakes()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    (model.weight.sum() + model.running_mean.sum() + model.needs_grad.sum()).backward()
    opt.step()
    changed = {k for k, v in model.state_dict().items() if not torch.equal(v, before[k])}
    assert changed == {r.name for r in audit(model) if r.optimizer_mutates}


def test_text_and_html_rendering() -> None:
    table = audit(Counting())
    text = str(table)
    lines = text.splitlines()
    assert lines[0].split("  ")[0] == "name"
    assert "mutation rule" in lines[0]
    assert lines[2].startswith("scratch ")
    assert "flags:" in text and "count: tensor attribute not registered" in text
    header_cols = [lines[0].index(h) for h in ("kind", "shape")]
    assert all(line[c - 2 : c] == "  " for line in lines[2:5] for c in header_cols)
    page = table._repr_html_()
    assert page.startswith('<table class="ownership-audit">') and page.endswith("</table>")
    assert page.count("<tr>") == len(table) + 1
    assert "the module&#x27;s forward, under no_grad" in page
    assert str(audit(nn.ReLU())).endswith("flags: none")


def test_rejects_what_is_not_a_module() -> None:
    with pytest.raises(TypeError, match="got Tensor"):
        audit(torch.zeros(2))


def test_importing_the_audit_does_not_import_torch() -> None:
    code = "import sys, ownership.auditing; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
