"""bench/run.py's cases cannot rot: each runs once at tiny sizes (no timing assertions) and
computes what torch computes, within the harness's tolerance. The runner itself (sections, rows,
goals, memory) is test_bench_runner.py's."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
import torch

from support.bench import load
from support.differential import Tolerance

bench = load()
SIZES = (12, 8, 3)


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


def test_the_micrograd_steps_agree() -> None:
    steps = [bench.cases.micrograd_step(engine, points=20) for engine in (torch, _ownership())]
    for _ in range(3):
        expected, got = (step() for step in steps)
        assert Tolerance().allows(expected, got), (expected, got)


def test_the_minimal_engine_runs_the_chains_as_torch_does() -> None:
    """The floor of the chain rows computes torch's gradient: every op of the chain (and each
    factor of its gradient) rounds once in float32, so the two differ by at most a few of
    float32's epsilon per op."""
    import minimal_engine

    n_ops = 40
    ours, theirs = (bench.cases.chain_step(e, n_ops)() for e in (minimal_engine, torch))
    assert abs(ours - theirs) <= 4 * n_ops * np.finfo(np.float32).eps * abs(theirs)
    views = bench.cases.view_chain_step(minimal_engine, 6)()
    assert views.data.shape == (12,) and views.data.dtype == np.float32


def test_each_contract_switch_keeps_the_forward_and_puts_the_engine_back() -> None:
    """Switching a contract off changes no value of the chain's forward, and the engine is
    whole again after the step: the same attributes, and a backward that runs."""
    engine = _ownership()
    costs = bench.contract_costs
    whole = costs.forward_step(engine, 12, [])()
    for contract in (*((c,) for c in costs.CONTRACTS), costs.CONTRACTS):
        patches = costs.switches(engine, contract)
        before = [vars(owner).get(name) for owner, name, _ in patches]
        switched = costs.forward_step(engine, 12, patches)()
        assert np.array_equal(switched.detach().numpy(), whole.detach().numpy())
        assert [vars(owner).get(name) for owner, name, _ in patches] == before
    x = engine.tensor([0.5, -0.25, 1.0], requires_grad=True)
    bench.cases.tiny_chain(x, 12).sum().backward()
    assert x.grad is not None


def test_a_contract_whose_place_is_gone_fails_the_measurement() -> None:
    costs = bench.contract_costs
    with pytest.raises(AssertionError, match="nothing of the engine is"):
        costs._everywhere(_ownership(), object(), None)
