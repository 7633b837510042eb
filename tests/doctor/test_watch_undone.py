"""The ownership watcher wraps engine methods, the ``.grad`` and ``.data`` properties and the op
table for one run only: after the run every one of them is the engine's own again."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from ownership.core import op_registry
from ownership.core.tensor import Tensor
from ownership.doctor import diagnose

from support.doctor_corpus import SCRIPTS


def engine_parts() -> dict[str, Any]:
    parts = {f"ops.{name}": fn for name, fn in op_registry.OPS.items()}
    for name in ("grad", "data", "backward"):  # what a tensor finds, and Tensor's own entry
        parts[f"Tensor.{name}"] = inspect.getattr_static(Tensor, name)
        parts[f"Tensor.__dict__[{name!r}]"] = vars(Tensor).get(name)
    return parts


def test_a_run_leaves_the_engine_as_it_found_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCTOR_ENGINE", "ownership")
    before = engine_parts()
    result = diagnose(SCRIPTS / "bug_clip_without_zeroing.py")
    assert result.codes() == ["stale-grad"]
    after = engine_parts()
    assert after.keys() == before.keys()
    assert [k for k in before if after[k] is not before[k]] == []
