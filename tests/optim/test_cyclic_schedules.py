"""``lr_scheduler.CyclicLR`` and ``OneCycleLR``: the learning rates and momentums torch's give,
bit for bit, over many batches (every mode and anneal strategy, momentum or betas cycled or
not, one group or two), the parameters they train, ``state_dict``/``load_state_dict`` and a
resumed schedule, and torch's errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.optimizers import loss, params, resumed_schedule


def bits(values: list[Any]) -> list[str]:
    """Floats as their exact hex text: two engines agree only if every bit does."""
    return [float(v).hex() for v in values]


OPTIMIZERS = {
    "SGD": lambda t, groups: t.optim.SGD(groups, lr=0.1, momentum=0.9),
    "Adam": lambda t, groups: t.optim.Adam(groups, lr=0.01, betas=(0.8, 0.99)),
    "RMSprop": lambda t, groups: t.optim.RMSprop(groups, lr=0.01, momentum=0.5),
    "Adagrad": lambda t, groups: t.optim.Adagrad(groups, lr=0.1),
}


def setup(t: ModuleType, optimizer: str = "SGD") -> Any:
    """Parameters and an optimizer with two groups (the second with its own lr)."""
    a, b, c = params(t)
    opt = OPTIMIZERS[optimizer](t, [{"params": [a, b]}, {"params": [c], "lr": 0.05}])
    return (a, b, c), opt


def momentums(opt: Any) -> list[Any]:
    return [
        bits([g["betas"][0] if "betas" in g else g.get("momentum", 0.0)]) for g in opt.param_groups
    ]


class Halving:
    """A callable object with state, as ``scale_fn`` (its ``__dict__`` is saved)."""

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __call__(self, x: float) -> float:
        return float(self.rate**x)


SCHEDULES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "CyclicLR triangular": (
        "CyclicLR",
        "SGD",
        {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 4},
    ),
    "CyclicLR triangular2 uneven": (
        "CyclicLR",
        "SGD",
        {
            "base_lr": [0.001, 0.002],
            "max_lr": (0.01, 0.03),
            "step_size_up": 3,
            "step_size_down": 5,
            "mode": "triangular2",
        },
    ),
    "CyclicLR exp_range": (
        "CyclicLR",
        "SGD",
        {"base_lr": 0.001, "max_lr": 0.1, "step_size_up": 2, "mode": "exp_range", "gamma": 0.9},
    ),
    "CyclicLR scale_fn by cycle": (
        "CyclicLR",
        "RMSprop",
        {
            "base_lr": 0.01,
            "max_lr": 0.05,
            "step_size_up": 3,
            "scale_fn": lambda x: 0.7**x,
            "mode": "unknown",
            "base_momentum": 0.3,
            "max_momentum": [0.6, 0.7],
        },
    ),
    "CyclicLR scale_fn by batch": (
        "CyclicLR",
        "SGD",
        {
            "base_lr": 0.01,
            "max_lr": 0.05,
            "step_size_up": 3,
            "scale_fn": Halving(0.95),
            "scale_mode": "iterations",
        },
    ),
    "CyclicLR betas": ("CyclicLR", "Adam", {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 5}),
    "CyclicLR no momentum": (
        "CyclicLR",
        "Adagrad",
        {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "cycle_momentum": False},
    ),
    "OneCycleLR cos": ("OneCycleLR", "SGD", {"max_lr": 0.05, "total_steps": 30}),
    "OneCycleLR linear epochs": (
        "OneCycleLR",
        "SGD",
        {
            "max_lr": [0.05, 0.02],
            "epochs": 6,
            "steps_per_epoch": 5,
            "anneal_strategy": "linear",
            "pct_start": 0.4,
            "div_factor": 10.0,
            "final_div_factor": 100.0,
        },
    ),
    "OneCycleLR three phases": (
        "OneCycleLR",
        "RMSprop",
        {
            "max_lr": 0.05,
            "total_steps": 27,
            "three_phase": True,
            "base_momentum": [0.4, 0.5],
            "max_momentum": 0.8,
        },
    ),
    "OneCycleLR three phases linear betas": (
        "OneCycleLR",
        "Adam",
        {"max_lr": 0.01, "total_steps": 25, "three_phase": True, "anneal_strategy": "linear"},
    ),
    "OneCycleLR no momentum": (
        "OneCycleLR",
        "Adagrad",
        {"max_lr": 0.3, "total_steps": 26, "cycle_momentum": False, "pct_start": 0.25},
    ),
}
STEPS = 24  # every OneCycleLR case has at least STEPS + 1 total steps


@pytest.mark.parametrize("case", SCHEDULES, ids=list(SCHEDULES))
def test_learning_rates_and_momentums_over_many_batches(case: str) -> None:
    name, optimizer, options = SCHEDULES[case]

    def program(t: ModuleType) -> Any:
        ps, opt = setup(t, optimizer)
        sched = getattr(t.optim.lr_scheduler, name)(opt, **options)
        seen = [(bits(sched.get_last_lr()), momentums(opt), sched.last_epoch, sched._step_count)]
        for k in range(STEPS):
            opt.zero_grad()
            loss(t, *ps, k % 3 + 1).backward()
            opt.step()
            sched.step()
            lrs = [g["lr"] for g in opt.param_groups]
            seen.append((bits(sched.get_last_lr()), bits(lrs), momentums(opt), sched.last_epoch))
        kept = [
            {k: v for k, v in g.items() if k not in ("params", "betas")} for g in opt.param_groups
        ]
        return seen, kept, bits(sched.base_lrs), list(ps)

    same(program)


@pytest.mark.parametrize("case", SCHEDULES, ids=list(SCHEDULES))
def test_state_dict_and_a_resumed_schedule(case: str) -> None:
    name, optimizer, options = SCHEDULES[case]

    def program(t: ModuleType) -> Any:
        opt, sched, fresh, saved, lrs = resumed_schedule(
            t,
            lambda t: setup(t, optimizer)[1],
            lambda opt: getattr(t.optim.lr_scheduler, name)(opt, **options),
            lambda o, s: (bits(s.get_last_lr()), momentums(o)),
        )
        listed = list(saved), repr(saved)
        resumed = getattr(t.optim.lr_scheduler, name)(opt, last_epoch=sched.last_epoch, **options)
        for _ in range(3):
            opt.step()
            resumed.step()
        lrs.append((bits(resumed.get_last_lr()), momentums(opt), resumed.last_epoch))
        return listed, sorted(saved), lrs, fresh.last_epoch

    same(program)


def test_a_saved_scale_fn_object_updates_the_loading_one() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = t.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 2, scale_fn=Halving(0.5))
        saved = sched.state_dict()
        saved["_scale_fn_custom"]["rate"] = 0.25
        _, other_opt = setup(t)
        other_fn = Halving(0.9)
        other = t.optim.lr_scheduler.CyclicLR(other_opt, 0.01, 0.1, 2, scale_fn=other_fn)
        other.load_state_dict(saved)
        for _ in range(3):
            other_opt.step()
            other.step()
        return other_fn.rate, "_scale_fn_custom" in saved, bits(other.get_last_lr())

    same(program)


def test_stepping_one_cycle_past_its_total_steps_is_refused() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = t.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3)
        for _ in range(4):
            opt.step()
            sched.step()

    same(program)


def test_get_lr_from_outside_step_warns_and_still_moves_the_momentum() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = t.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 3)
        opt.step()
        sched.step()
        return bits(sched.get_lr()), momentums(opt)

    same(program)


def cyclic(t: ModuleType, optimizer: str = "SGD", **options: Any) -> Any:
    return t.optim.lr_scheduler.CyclicLR(
        setup(t, optimizer)[1], **{"base_lr": 0.01, "max_lr": 0.1, **options}
    )


def one_cycle(t: ModuleType, optimizer: str = "SGD", **options: Any) -> Any:
    return t.optim.lr_scheduler.OneCycleLR(
        setup(t, optimizer)[1], **{"max_lr": 0.1, "total_steps": 10, **options}
    )


ERRORS = {
    "CyclicLR not an optimizer": lambda t: t.optim.lr_scheduler.CyclicLR([1.0], 0.01, 0.1),
    "CyclicLR base_lr count": lambda t: cyclic(t, base_lr=[0.01]),
    "CyclicLR max_lr count": lambda t: cyclic(t, max_lr=(0.1, 0.2, 0.3)),
    "CyclicLR mode": lambda t: cyclic(t, mode="triangle"),
    "CyclicLR without momentum": lambda t: cyclic(t, "Adagrad"),
    "CyclicLR momentum counts": lambda t: cyclic(t, base_momentum=[0.8], max_momentum=[0.9]),
    "CyclicLR resumed without initial_lr": lambda t: cyclic(t, last_epoch=3),
    "OneCycleLR not an optimizer": lambda t: t.optim.lr_scheduler.OneCycleLR(None, 0.1, 10),
    "OneCycleLR no length": lambda t: one_cycle(t, total_steps=None, epochs=3),
    "OneCycleLR total_steps 0": lambda t: one_cycle(t, total_steps=0),
    "OneCycleLR total_steps float": lambda t: one_cycle(t, total_steps=10.0),
    "OneCycleLR epochs": lambda t: one_cycle(t, total_steps=None, epochs=0, steps_per_epoch=3),
    "OneCycleLR steps_per_epoch": lambda t: one_cycle(
        t, total_steps=None, epochs=2, steps_per_epoch=1.5
    ),
    "OneCycleLR pct_start int": lambda t: one_cycle(t, pct_start=1),
    "OneCycleLR pct_start above 1": lambda t: one_cycle(t, pct_start=1.5),
    "OneCycleLR anneal_strategy": lambda t: one_cycle(t, anneal_strategy="cosine"),
    "OneCycleLR max_lr count": lambda t: one_cycle(t, max_lr=[0.1]),
    "OneCycleLR without momentum": lambda t: one_cycle(t, "Adagrad"),
    "OneCycleLR momentum counts": lambda t: one_cycle(t, base_momentum=[0.8], max_momentum=[0.9]),
    "OneCycleLR resumed without max_lr": lambda t: t.optim.lr_scheduler.OneCycleLR(
        t.optim.SGD(
            [{"params": [t.nn.Parameter(t.ones(1))], "initial_lr": 0.1}], lr=0.1, momentum=0.9
        ),
        max_lr=0.1,
        total_steps=10,
        last_epoch=2,
    ),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_errors(case: str) -> None:
    same(ERRORS[case])


@pytest.mark.parametrize("case", SCHEDULES, ids=list(SCHEDULES))
def test_every_case_trains_without_diverging(case: str) -> None:
    """The premise of comparing trained parameters with a float32 tolerance: each schedule's
    run stays small in torch (a run that blows up amplifies a last-bit difference of a SIMD
    kernel into a different number, or into nan)."""
    import torch

    name, optimizer, options = SCHEDULES[case]
    ps, opt = setup(torch, optimizer)
    sched = getattr(torch.optim.lr_scheduler, name)(opt, **options)
    for k in range(STEPS):
        opt.zero_grad()
        loss(torch, *ps, k % 3 + 1).backward()
        opt.step()
        sched.step()
    assert all(float(p.detach().abs().max()) < 10 for p in ps)
