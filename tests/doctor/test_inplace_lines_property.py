"""Property: for a generated program that raises the version error, the ``inplace-write``
finding names exactly the lines of the writes made to the saved tensor after it was saved, in
order, and the line that saved it; writes before the save and writes to other tensors are not
named. Under both engines."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ownership.doctor import diagnose

SAVES = ["h = a.exp()", "h = a.sigmoid()", "h = a.tanh()"]
WRITES = ["h.add_(1.0)", "h.mul_(2.0)", "h[0].mul_(3.0)", "h.detach().sub_(0.5)", "h += 1"]
BEFORE = ["a.add_(1.0)", "a.mul_(0.5)"]
OTHERS = ["other.add_(1.0)", "z = h + 1", "other = other * 2"]


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, int, list[int]]:
    """Program text, the line of the save, and the lines of the writes after it."""
    lines = [
        "import os",
        'if os.environ.get("DOCTOR_ENGINE") == "ownership":',
        "    import ownership as torch",
        "else:",
        "    import torch",
        "x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)",
        "a = x * 1",
        "other = torch.zeros(3)",
    ]
    lines += draw(st.lists(st.sampled_from(BEFORE + OTHERS[:1]), max_size=2))
    lines.append(draw(st.sampled_from(SAVES)))
    saved = len(lines)
    after = draw(
        st.lists(
            st.tuples(st.booleans(), st.sampled_from(WRITES), st.sampled_from(OTHERS)),
            min_size=1,
            max_size=5,
        ).filter(lambda ops: any(is_write for is_write, _, _ in ops))
    )
    writes = []
    for is_write, write, other in after:
        lines.append(write if is_write else other)
        if is_write:
            writes.append(len(lines))
    lines.append("h.sum().backward()")
    return "\n".join(lines) + "\n", saved, writes


@pytest.mark.parametrize("engine", ["torch", "ownership"])
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(program=programs())
def test_inplace_write_names_exactly_the_writes_since_the_save(
    engine: str,
    program: tuple[str, int, list[int]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, saved, writes = program
    script = tmp_path / "generated.py"
    script.write_text(text)
    monkeypatch.setenv("DOCTOR_ENGINE", engine)
    result = diagnose(script)
    assert result.exit_status == 1, result.error
    assert [f.code for f in result.findings] == ["inplace-write"], (text, result.findings)
    finding = result.findings[0]
    assert finding.lines("write") == writes, text
    assert finding.lines("saved") == [saved]
    assert finding.line == writes[0]
