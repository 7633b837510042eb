"""bench/run.py's runner cannot rot: its sections, rows, goals and memory budgets, at tiny sizes
(no timing assertions). Nothing here compares a floating-point value, so these tests are exact on
every CPU (``support.kernels.EXACT_FILES``); the cases' values are test_bench_smoke.py's."""

from __future__ import annotations

import contextlib
import io
from types import ModuleType

import pytest
import torch

from support.bench import load

bench = load()
SMOKE = "mlp,tiny,micrograd,chain,views,contracts,random,memory"  # all but the doctor and site


def _ownership() -> ModuleType:
    import ownership

    return ownership


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
        sizes = ["--long-chain", "8", "--view-chain", "8", "--contract-chain", "8"]
        sizes += ["--train-steps", "25"]
        return bench.main(["--repeats", "1", *args, *sizes, "--mib", "1", "--only", SMOKE])
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny_run() -> tuple[int, str]:
    """One run of ``bench.main`` at tiny sizes: its exit status and what it printed (the two
    tests below read the same run)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = _main_at(batch=4, chain=4, views=10)
    return status, out.getvalue()


def test_main_runs_end_to_end_at_tiny_sizes(tiny_run: tuple[int, str]) -> None:
    status, out = tiny_run
    assert "ownership/torch" in out and "ownership/numpy" in out and "PASS" in out
    assert "minimal engine/numpy" in out and "(reference, no goal)" in out
    assert "10,000-op chain forward: minimal engine/torch" in out
    assert status == 0


def test_the_contracts_section_times_each_switch_and_the_floor(tiny_run: tuple[int, str]) -> None:
    _, out = tiny_run
    for contract in bench.contract_costs.CONTRACTS:
        assert f"8-op chain forward without {contract.label} ({contract.where}): /whole |" in out
    assert f"without all {len(bench.contract_costs.CONTRACTS)}: ownership/torch |" in out
    assert "| 8-op chain forward: minimal engine/torch |" in out
    assert "ERROR" not in out


def test_main_prints_every_row_of_the_issue_with_its_goal(tiny_run: tuple[int, str]) -> None:
    _, out = tiny_run
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
        "contracts",
        "random",
        "memory",
    ]


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
