"""bench/run.py cannot rot: each case runs once at tiny sizes (no timing assertions)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch

from support.differential import Tolerance

BENCH = Path(__file__).resolve().parents[2] / "bench" / "run.py"
SIZES = (12, 8, 3)
SMOKE = "mlp,tiny,micrograd,chain,views,random,memory"  # every section but the doctor and the site


def _load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


bench = _load_bench()


def _ownership() -> ModuleType:
    import ownership

    return ownership


def test_the_three_mlp_steps_compute_the_same_loss() -> None:
    losses = [
        bench.cases.engine_mlp_step(_ownership(), 5, SIZES)(),
        bench.cases.engine_mlp_step(torch, 5, SIZES)(),
        bench.cases.numpy_mlp_step(5, SIZES)(),
    ]
    assert all(Tolerance().allows(losses[1], loss) for loss in losses), losses


def test_torch_and_numpy_steps_agree_over_several_updates() -> None:
    torch_step = bench.cases.engine_mlp_step(torch, 5, SIZES)
    numpy_step = bench.cases.numpy_mlp_step(5, SIZES)
    for _ in range(3):
        assert Tolerance().allows(torch_step(), numpy_step())


def test_the_minimal_engine_trains_as_torch_does() -> None:
    """The reference engine computes torch's step: the same losses over several updates, and
    the same gradients as torch's after one step."""
    torch_step = bench.cases.engine_mlp_step(torch, 5, SIZES)
    minimal_step = bench.cases.minimal_mlp_step(5, SIZES)
    for _ in range(4):
        assert Tolerance().allows(torch_step(), minimal_step())


def test_the_minimal_engine_gives_torchs_gradients_and_none_for_the_input() -> None:
    from minimal_engine import Value

    weights, x_np, y_np = bench.cases.mlp_data(5, SIZES)
    ours = [Value(w) for w in weights]
    theirs = [torch.tensor(w, requires_grad=True) for w in weights]
    x, rows = Value(x_np, wants_grad=False), np.arange(5)
    loss = ((x @ ours[0] + ours[1]).relu() @ ours[2] + ours[3]).log_softmax().nll_loss(y_np, rows)
    loss.backward()
    hidden = torch.relu(torch.tensor(x_np) @ theirs[0] + theirs[1])
    torch.nn.functional.cross_entropy(hidden @ theirs[2] + theirs[3], torch.tensor(y_np)).backward()
    for v, t in zip(ours, theirs, strict=True):
        assert t.grad is not None and Tolerance().allows(t.grad.numpy(), v.grad)
    assert x.grad is None


@pytest.mark.parametrize("engine", ["ownership", "torch"])
def test_the_chain_runs(engine: str) -> None:
    module = _ownership() if engine == "ownership" else torch
    value = bench.cases.chain_step(module, 8)()
    assert np.isfinite(value)


def test_the_chains_agree() -> None:
    assert Tolerance().allows(
        bench.cases.chain_step(torch, 12)(), bench.cases.chain_step(_ownership(), 12)()
    )


def test_interleaved_medians_calls_each_step_in_turn() -> None:
    calls: list[str] = []
    medians = bench.interleaved_medians(
        {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, repeats=3, warmup=1
    )
    assert sorted(medians) == ["a", "b"] and all(m >= 0 for m in medians.values())
    assert calls == ["a", "b"] * 4


def test_a_failing_engine_is_an_error_row_not_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    def broken() -> None:
        raise AttributeError("no such op")

    rows = bench._timed_rows({"broken": lambda: broken, "fine": lambda: lambda: None}, 2)
    assert rows["broken"] is None and rows["fine"] is not None
    assert "broken     ERROR AttributeError: no such op" in capsys.readouterr().out


def test_view_memory_of_ownership_is_small_and_the_control_sees_a_copy() -> None:
    views_bytes, clone_bytes = bench.cases.view_memory_bytes(_ownership(), n_views=50, mib=1)
    assert clone_bytes >= 1024 * 1024
    assert views_bytes < clone_bytes


def test_make_views_gives_views_in_torch() -> None:
    base = torch.zeros(64 * 4)
    views = bench.cases.make_views(base, 16)
    assert all(v._base is base or v.data_ptr() == base.data_ptr() for v in views[:8])


def _main_at(batch: int, chain: int, views: int) -> int:
    """``bench.main`` at tiny sizes (one repeat, 1 MiB); torch's thread count is restored after."""
    threads = torch.get_num_threads()
    try:
        args = ["--batch", str(batch), "--chain", str(chain), "--views", str(views)]
        sizes = ["--long-chain", "8", "--view-chain", "8", "--train-steps", "25"]
        return bench.main(["--repeats", "1", *args, *sizes, "--mib", "1", "--only", SMOKE])
    finally:
        torch.set_num_threads(threads)


def test_main_runs_end_to_end_at_tiny_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    status = _main_at(batch=4, chain=4, views=10)
    out = capsys.readouterr().out
    assert "ownership/torch" in out and "ownership/numpy" in out and "PASS" in out
    assert "minimal engine/numpy" in out and "(reference, no goal)" in out
    assert status == 0


def test_main_prints_every_row_of_the_issue_with_its_goal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _main_at(batch=4, chain=4, views=10)
    out = capsys.readouterr().out
    for figure, goal in bench.GOALS.items():
        assert f"| {figure} | " in out and f"<= {goal:.2f}x" in out
    assert "| 10 views of a 1 MiB tensor: memory |" in out
    assert "| 25 training steps: memory kept |" in out


def test_only_runs_the_named_sections(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        bench.main(["--only", "memory", "--views", "4", "--mib", "1", "--train-steps", "22"]) == 0
    )
    out = capsys.readouterr().out
    assert "1. memory" in out and "ownership/torch" not in out
    with pytest.raises(SystemExit, match="unknown section"):
        bench.main(["--only", "nothing"])


def test_quick_leaves_out_the_doctor_and_the_site() -> None:
    args = bench.argparse.Namespace(only="", quick=True, site=True)
    assert bench._sections(args) == [
        "mlp",
        "tiny",
        "micrograd",
        "chain",
        "views",
        "random",
        "memory",
    ]


def test_the_micrograd_steps_agree() -> None:
    steps = [bench.cases.micrograd_step(engine, points=20) for engine in (torch, _ownership())]
    for _ in range(3):
        expected, got = (step() for step in steps)
        assert Tolerance().allows(expected, got), (expected, got)


@pytest.mark.parametrize("engine", ["ownership", "torch"])
def test_the_split_chain_times_its_two_parts(engine: str) -> None:
    module = _ownership() if engine == "ownership" else torch
    parts = bench.cases.split_chain_step(module, 12)()
    assert [label for label, _ in parts] == ["forward", "backward"]
    medians = bench.interleaved_medians({"c": bench.cases.split_chain_step(module, 4)}, 2, 1)
    assert sorted(medians) == ["c", "c/backward", "c/forward"]


def test_the_view_chains_agree() -> None:
    ours, theirs = (bench.cases.view_chain_step(e, 6)() for e in (_ownership(), torch))
    assert ours.shape == theirs.shape and ours.grad_fn.name() == theirs.grad_fn.name()


def test_training_keeps_no_memory_and_the_control_sees_a_graph() -> None:
    growth, one_graph = bench.cases.training_growth_bytes(_ownership(), steps=30, settle=10)
    assert growth < bench.GROWTH_BUDGET_BYTES < one_graph


def test_main_fails_when_the_view_memory_goal_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "VIEW_BUDGET_BYTES", 0)
    assert _main_at(batch=2, chain=2, views=4) == 1


def test_main_fails_when_the_training_memory_goal_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "GROWTH_BUDGET_BYTES", -(2**40))
    assert (
        bench.main(["--only", "memory", "--views", "4", "--mib", "1", "--train-steps", "22"]) == 1
    )


@pytest.mark.parametrize("engine", ["ownership", "torch"])
def test_the_doctor_row_runs_the_training_script_clean(engine: str) -> None:
    steps = bench.cases.doctor_steps(bench.MLP_SCRIPT, engine, 2)
    assert sorted(steps) == ["doctor", "plain"]
    for step in steps.values():
        step()  # the doctored run raises if the doctor finds anything in the clean script


def test_main_gives_the_frozen_objects_back_to_the_collector(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import gc

    assert (
        bench.main(["--only", "memory", "--views", "4", "--mib", "1", "--train-steps", "22"]) == 0
    )
    assert "frozen out of the collector" in capsys.readouterr().out
    assert gc.get_freeze_count() == 0
