"""``optim.lr_scheduler.ReduceLROnPlateau``: the learning rates it gives for a metric history
(modes, thresholds, patience, cooldown, ``min_lr``), its ``state_dict``, a tensor metric, and
torch's errors and warnings."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.optimizers import params

METRICS = [5.0, 4.0, 4.0, 3.9999, 4.1, 4.2, 3.0, 3.0, 3.0, 3.0, 2.9, 2.9, 2.9, 2.9, 2.9, 2.9]

OPTIONS = {
    "default": {},
    "patience": {"patience": 1, "factor": 0.5},
    "max mode": {"mode": "max", "patience": 0},
    "abs threshold": {"threshold_mode": "abs", "threshold": 0.5, "patience": 1},
    "cooldown": {"patience": 0, "cooldown": 2, "factor": 0.5},
    "min_lr": {"patience": 0, "min_lr": 0.02},
    "min_lr per group": {"patience": 0, "min_lr": [0.05, 0.001]},
    "eps": {"patience": 0, "factor": 0.99, "eps": 0.01},
}


def setup(t: ModuleType) -> Any:
    a, b, c = params(t)
    return t.optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.25}], lr=0.1)


@pytest.mark.parametrize("case", OPTIONS, ids=list(OPTIONS))
def test_learning_rates_for_a_metric_history(case: str) -> None:
    def program(t: ModuleType) -> Any:
        opt = setup(t)
        sched = t.optim.lr_scheduler.ReduceLROnPlateau(opt, **OPTIONS[case])
        seen = [(sched.get_last_lr(), sorted(opt.param_groups[0]))]
        for metric in METRICS:
            sched.step(metric)
            seen.append(
                (
                    [lr.hex() for lr in sched.get_last_lr()],
                    sched.best,
                    sched.num_bad_epochs,
                    sched.cooldown_counter,
                    sched.in_cooldown,
                    sched.last_epoch,
                )
            )
        return seen, sched.state_dict()

    same(program)


def test_a_tensor_metric_and_a_resumed_scheduler() -> None:
    def program(t: ModuleType) -> Any:
        opt = setup(t)
        sched = t.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1)
        for metric in METRICS[:5]:
            sched.step(t.tensor(metric))
        fresh = t.optim.lr_scheduler.ReduceLROnPlateau(setup(t), mode="max")
        fresh.load_state_dict(sched.state_dict())
        for s in (sched, fresh):
            for metric in METRICS[5:]:
                s.step(metric)
        return sched.get_last_lr(), fresh.get_last_lr(), fresh.mode_worse, list(fresh.state_dict())

    same(program)


def test_step_with_an_epoch_warns() -> None:
    def program(t: ModuleType) -> Any:
        sched = t.optim.lr_scheduler.ReduceLROnPlateau(setup(t), patience=0)
        sched.step(1.0, epoch=7)
        sched.step(2.0)
        return sched.last_epoch, sched.get_last_lr()

    same(program)


def test_a_group_added_later() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        out = []
        for min_lr in (0.001, [0.001]):
            opt = t.optim.SGD([a], lr=0.1)
            sched = t.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=min_lr)
            opt.add_param_group({"params": [b] if min_lr == 0.001 else [c], "lr": 0.5})
            sched.step(1.0)
            try:
                sched.step(2.0)
            except RuntimeError as e:
                out.append(str(e))
            out.append((sched.get_last_lr(), sched.min_lrs))
        return out

    same(program)


ERRORS = {
    "factor": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(setup(t), factor=1.0),
    "not an optimizer": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(None),
    "min_lr count": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(setup(t), min_lr=[0.1]),
    "mode": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(setup(t), mode="low"),
    "threshold mode": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(
        setup(t), threshold_mode="ratio"
    ),
    "metric not a number": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(setup(t)).step("x"),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_errors(case: str) -> None:
    same(ERRORS[case])
