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


def test_the_ops_a_backward_runs_are_unseen_as_by_torchs_function_mode() -> None:
    """The watcher reads the op calls torch's function mode sees: not those a backward runs (its
    nodes' ops), nor those an op runs (the observer point's outermost calls only)."""
    import ownership
    from ownership.doctor.ledger import Ledger
    from ownership.doctor.ownership_watch import OwnershipWatch

    seen: list[str] = []
    watch = OwnershipWatch(Ledger())
    watch.hand.derive = lambda name, args, result: seen.append(name)  # type: ignore[method-assign]
    try:
        x = ownership.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        ownership.as_tensor(x.detach(), dtype=ownership.float64)
    finally:
        watch.stop()
    assert seen == ["ones", "mul", "sum", "detach", "as_tensor"]  # ``backward``: in a backward
