"""``SequentialLR`` and ``ChainedScheduler``: the learning rates of schedules run one after
another or together, bit for bit over many steps; their ``state_dict`` (the inner schedulers'
states nested), a resumed composite, and torch's errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.optimizers import params, resumed_schedule


def bits(values: list[float]) -> list[str]:
    """Floats as their exact hex text: two engines agree only if every bit does."""
    return [float(v).hex() for v in values]


def setup(t: ModuleType) -> Any:
    a, b, c = params(t)
    return t.optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.25}], lr=0.1)


def inner(t: ModuleType, opt: Any, kind: str) -> list[Any]:
    s = t.optim.lr_scheduler
    if kind == "warmup then cosine":
        return [s.LinearLR(opt, start_factor=0.1, total_iters=4), s.CosineAnnealingLR(opt, 8)]
    if kind == "three phases":
        return [
            s.ConstantLR(opt, factor=0.5, total_iters=2),
            s.ExponentialLR(opt, gamma=0.9),
            s.StepLR(opt, step_size=2, gamma=0.3),
        ]
    if kind == "lambda and multistep":
        return [s.LambdaLR(opt, lambda e: 1 / (e + 1)), s.MultiStepLR(opt, [3, 6], gamma=0.5)]
    return [s.PolynomialLR(opt, total_iters=6, power=2.0)]


KINDS = ["warmup then cosine", "three phases", "lambda and multistep", "one"]
MILESTONES = {"warmup then cosine": [4], "three phases": [3, 7], "lambda and multistep": [5]}


@pytest.mark.parametrize("kind", KINDS)
def test_sequential_lr_over_many_steps(kind: str) -> None:
    def program(t: ModuleType) -> Any:
        opt = setup(t)
        schedulers = inner(t, opt, kind)
        after_inner = bits([g["lr"] for g in opt.param_groups])
        sched = t.optim.lr_scheduler.SequentialLR(opt, schedulers, MILESTONES.get(kind, []))
        seen = [(after_inner, bits(sched.get_last_lr()), [s.last_epoch for s in schedulers])]
        for _ in range(16):
            opt.step()
            sched.step()
            seen.append((bits(sched.get_last_lr()), sched.last_epoch))
        return seen, list(sched.state_dict()), [list(s) for s in sched.state_dict()["_schedulers"]]

    same(program)


@pytest.mark.parametrize("kind", KINDS)
def test_chained_scheduler_over_many_steps(kind: str) -> None:
    def program(t: ModuleType) -> Any:
        opt = setup(t)
        schedulers = inner(t, opt, kind)
        sched = t.optim.lr_scheduler.ChainedScheduler(schedulers)
        seen = [bits(sched.get_last_lr())]
        for _ in range(12):
            opt.step()
            sched.step()
            seen.append((bits(sched.get_last_lr()), [s.last_epoch for s in schedulers]))
        return seen, list(sched.state_dict())

    same(program)


@pytest.mark.parametrize("composite", ["SequentialLR", "ChainedScheduler"])
def test_a_resumed_composite_continues_identically(composite: str) -> None:
    def make(t: ModuleType, opt: Any) -> Any:
        schedulers = inner(t, opt, "three phases")
        if composite == "SequentialLR":
            return t.optim.lr_scheduler.SequentialLR(opt, schedulers, [3, 7])
        return t.optim.lr_scheduler.ChainedScheduler(schedulers, optimizer=opt)

    def program(t: ModuleType) -> Any:
        _, _, _, saved, out = resumed_schedule(
            t, setup, lambda opt: make(t, opt), lambda o, s: bits(s.get_last_lr()), steps=5
        )
        return out, "_schedulers" in saved, len(saved["_schedulers"])

    same(program)


def test_the_inner_schedulers_still_warn_when_stepped_before_the_optimizer() -> None:
    def program(t: ModuleType) -> Any:
        opt = setup(t)
        s = t.optim.lr_scheduler
        sched = s.ChainedScheduler([s.StepLR(opt, 1, 0.5), s.ExponentialLR(opt, 0.9)])
        sched.step()
        return bits(sched.get_last_lr())

    same(program)


ERRORS = {
    "sequential empty": lambda t: t.optim.lr_scheduler.SequentialLR(setup(t), [], []),
    "chained empty": lambda t: t.optim.lr_scheduler.ChainedScheduler([]),
    "milestones count": lambda t: t.optim.lr_scheduler.SequentialLR(
        (o := setup(t)), inner(t, o, "three phases"), [3]
    ),
    "not a scheduler": lambda t: t.optim.lr_scheduler.SequentialLR(setup(t), [object()], []),
    "plateau": lambda t: t.optim.lr_scheduler.ChainedScheduler(
        [t.optim.lr_scheduler.ReduceLROnPlateau(setup(t))]
    ),
    "another optimizer": lambda t: t.optim.lr_scheduler.SequentialLR(
        setup(t), [t.optim.lr_scheduler.ExponentialLR(setup(t), 0.5)], []
    ),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_errors(case: str) -> None:
    same(ERRORS[case])
