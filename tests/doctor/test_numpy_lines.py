"""The numpy-write line tracer is on only while a numpy alias of a saved tensor is out, keeps
calling the trace function set before it (a debugger, coverage), and gives it back."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from ownership.doctor.runner import diagnose

SCRIPT = """\
import sys
import {module} as torch


def tracer_name():
    return getattr(sys.gettrace(), "__name__", None)


x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x.exp()
print(tracer_name())
array = h.detach().numpy()
print(tracer_name())
array += 1
h.sum().backward()
print(tracer_name())
"""
WRITE_LINE = 14


@pytest.mark.parametrize("module", ["torch", "ownership"])
def test_the_tracer_runs_only_while_an_alias_is_out_and_chains(
    module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "alias.py"
    script.write_text(textwrap.dedent(SCRIPT.format(module=module)))
    seen: list[int] = []

    def recorder(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename == str(script) and event == "line":
            seen.append(frame.f_lineno)
        return recorder

    before = sys.gettrace()
    sys.settrace(recorder)
    try:
        result = diagnose(script)
        after = sys.gettrace()
    finally:
        sys.settrace(before)
    assert after is recorder
    assert capsys.readouterr().out.split() == ["recorder", "global_trace", "recorder"]
    assert [f.line for f in result.findings] == [WRITE_LINE]
    assert WRITE_LINE in seen and WRITE_LINE + 2 in seen  # still called while the tracer ran
