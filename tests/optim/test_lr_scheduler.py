"""``optim.lr_scheduler``: the learning rates torch's schedules give, bit for bit, over many
steps (recursive where torch's rule is, closed form where it is); ``last_epoch``,
``get_last_lr()``, ``initial_lr``, ``state_dict``/``load_state_dict``; torch's warnings (the
scheduler stepped before the optimizer, ``get_lr()`` read from outside, ``step(epoch)``) and
errors."""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.optimizers import loss, params, resumed_schedule


def bits(values: list[float]) -> list[str]:
    """Floats as their exact hex text: two engines agree only if every bit does."""
    return [float(v).hex() for v in values]


def setup(t: ModuleType) -> Any:
    """Parameters and an SGD with two groups of different learning rates."""
    a, b, c = params(t)
    opt = t.optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.25}], lr=0.1, momentum=0.9)
    return (a, b, c), opt


class Warmup:
    """A callable object with state, for ``LambdaLR`` (its ``__dict__`` is saved)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __call__(self, epoch: int) -> float:
        return min(1.0, (epoch + 1) / self.n)


SCHEDULES = {
    "StepLR": ("StepLR", {"step_size": 3, "gamma": 0.5}),
    "StepLR default gamma": ("StepLR", {"step_size": 2}),
    "MultiStepLR": ("MultiStepLR", {"milestones": [2, 5, 5, 11], "gamma": 0.3}),
    "ExponentialLR": ("ExponentialLR", {"gamma": 0.9}),
    "LambdaLR": ("LambdaLR", {"lr_lambda": lambda e: 0.95**e}),
    "LambdaLR per group": ("LambdaLR", {"lr_lambda": [lambda e: 1 / (e + 1), Warmup(4)]}),
    "CosineAnnealingLR": ("CosineAnnealingLR", {"T_max": 7}),
    "CosineAnnealingLR eta_min": ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    "MultiplicativeLR": ("MultiplicativeLR", {"lr_lambda": lambda e: 0.9 if e % 2 else 0.99}),
    "MultiplicativeLR per group": (
        "MultiplicativeLR",
        {"lr_lambda": (lambda e: 0.95, Warmup(3))},
    ),
    "ConstantLR": ("ConstantLR", {}),
    "ConstantLR factor": ("ConstantLR", {"factor": 0.3, "total_iters": 4}),
    "PolynomialLR": ("PolynomialLR", {"total_iters": 12}),
    "PolynomialLR power": ("PolynomialLR", {"total_iters": 9, "power": 2.5}),
    "CosineAnnealingWarmRestarts": ("CosineAnnealingWarmRestarts", {"T_0": 5}),
    "CosineAnnealingWarmRestarts T_mult": (
        "CosineAnnealingWarmRestarts",
        {"T_0": 2, "T_mult": 2, "eta_min": 0.001},
    ),
    "LinearLR": ("LinearLR", {}),
    "LinearLR decay": ("LinearLR", {"start_factor": 1.0, "end_factor": 0.1, "total_iters": 9}),
}


@pytest.mark.parametrize("case", SCHEDULES, ids=list(SCHEDULES))
def test_learning_rates_over_many_steps(case: str) -> None:
    name, options = SCHEDULES[case]

    def program(t: ModuleType) -> Any:
        ps, opt = setup(t)
        sched = getattr(t.optim.lr_scheduler, name)(opt, **options)
        seen = [(bits(sched.get_last_lr()), sched.last_epoch, sched._step_count)]
        for k in range(24):
            opt.zero_grad()
            loss(t, *ps, k % 3 + 1).backward()
            opt.step()
            sched.step()
            lrs = [g["lr"] for g in opt.param_groups]
            seen.append((bits(sched.get_last_lr()), bits(lrs), sched.last_epoch))
        return (
            seen,
            [bits([g["initial_lr"]]) for g in opt.param_groups],
            bits(sched.base_lrs),
            list(ps),
        )

    same(program)


@pytest.mark.parametrize("case", SCHEDULES, ids=list(SCHEDULES))
def test_state_dict_and_a_resumed_scheduler(case: str) -> None:
    name, options = SCHEDULES[case]

    def program(t: ModuleType) -> Any:
        _, _, fresh, saved, lrs = resumed_schedule(
            t,
            lambda t: setup(t)[1],
            lambda opt: getattr(t.optim.lr_scheduler, name)(opt, **options),
            lambda o, s: bits(s.get_last_lr()),
        )
        return list(saved), repr(saved), lrs, fresh.last_epoch

    same(program)


@pytest.mark.parametrize("case", SCHEDULES, ids=list(SCHEDULES))
def test_resuming_with_last_epoch(case: str) -> None:
    name, options = SCHEDULES[case]

    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        first = getattr(t.optim.lr_scheduler, name)(opt, **options)
        for _ in range(3):
            opt.step()
            first.step()
        resumed = getattr(t.optim.lr_scheduler, name)(opt, last_epoch=first.last_epoch, **options)
        seen = [(bits(resumed.get_last_lr()), resumed.last_epoch)]
        for _ in range(5):
            opt.step()
            resumed.step()
            seen.append((bits(resumed.get_last_lr()), resumed.last_epoch))
        return seen

    same(program)


def test_initial_lr_is_kept_and_base_lrs_read_from_it() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        opt.param_groups[0]["initial_lr"] = 1.0
        sched = t.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        opt.step()
        sched.step()
        return [sorted(g) for g in opt.param_groups], sched.base_lrs, sched.get_last_lr()

    same(program)


def test_two_schedulers_on_one_optimizer_compose() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        warmup = t.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
        decay = t.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        seen = []
        for _ in range(8):
            opt.step()
            warmup.step()
            decay.step()
            seen.append((bits(warmup.get_last_lr()), bits(decay.get_last_lr())))
        return seen

    same(program)


def test_scheduler_stepped_before_the_optimizer_warns_once() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = t.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        sched.step()  # before any optimizer.step(): torch's warning
        opt.step()
        sched.step()
        sched.step()
        return sched.get_last_lr(), sched._step_count

    same(program)


def test_the_right_order_gives_no_warning() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = t.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        for _ in range(3):
            opt.step()
            sched.step()
        return sched.get_last_lr(), getattr(opt.step, "_wrapped_by_lr_sched", None)

    same(program)


def test_an_optimizer_step_replaced_after_the_scheduler_warns() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = t.optim.lr_scheduler.StepLR(opt, step_size=1)
        opt.step = lambda closure=None: None
        opt.step()
        sched.step()
        return sched.get_last_lr()

    same(program)


def test_get_lr_from_outside_step_warns() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = t.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        opt.step()
        sched.step()
        return sched.get_lr(), sched.get_last_lr()

    same(program)


@pytest.mark.parametrize("case", SCHEDULES, ids=list(SCHEDULES))
def test_step_with_an_epoch_uses_the_closed_form_and_warns(case: str) -> None:
    name, options = SCHEDULES[case]

    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = getattr(t.optim.lr_scheduler, name)(opt, **options)
        opt.step()
        seen = []
        for epoch in (3, 8, 5):
            sched.step(epoch)
            seen.append((bits(sched.get_last_lr()), sched.last_epoch))
        return seen

    same(program)


def test_an_optimizer_with_a_scheduler_still_deep_copies() -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        t.optim.lr_scheduler.StepLR(opt, step_size=1)
        twin = copy.deepcopy(opt)
        twin.step()
        return "step" in vars(twin), twin.param_groups[1]["initial_lr"], twin.state_dict()

    same(program)


ERRORS = {
    "not an optimizer": lambda t: t.optim.lr_scheduler.StepLR([1.0], step_size=1),
    "resume without initial_lr": lambda t: t.optim.lr_scheduler.StepLR(
        setup(t)[1], step_size=1, last_epoch=3
    ),
    "LinearLR start 0": lambda t: t.optim.lr_scheduler.LinearLR(setup(t)[1], start_factor=0),
    "LinearLR start above 1": lambda t: t.optim.lr_scheduler.LinearLR(
        setup(t)[1], start_factor=1.5
    ),
    "LinearLR end": lambda t: t.optim.lr_scheduler.LinearLR(setup(t)[1], end_factor=-0.1),
    "LambdaLR count": lambda t: t.optim.lr_scheduler.LambdaLR(
        setup(t)[1], lr_lambda=[lambda e: 1.0]
    ),
    "ConstantLR factor": lambda t: t.optim.lr_scheduler.ConstantLR(setup(t)[1], factor=1.5),
    "ConstantLR negative": lambda t: t.optim.lr_scheduler.ConstantLR(setup(t)[1], factor=-0.1),
    "MultiplicativeLR not callable": lambda t: t.optim.lr_scheduler.MultiplicativeLR(
        setup(t)[1], lr_lambda=[0.5, lambda e: 1.0]
    ),
    "MultiplicativeLR count": lambda t: t.optim.lr_scheduler.MultiplicativeLR(
        setup(t)[1], lr_lambda=(lambda e: 1.0,)
    ),
    "warm restarts T_0": lambda t: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        setup(t)[1], T_0=0
    ),
    "warm restarts T_0 float": lambda t: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        setup(t)[1], T_0=2.0
    ),
    "warm restarts T_mult": lambda t: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        setup(t)[1], T_0=2, T_mult=0
    ),
    "warm restarts eta_min": lambda t: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        setup(t)[1], T_0=2, eta_min="0"
    ),
    "warm restarts negative epoch": lambda t: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        setup(t)[1], T_0=2
    ).step(-1),
    "base get_lr": lambda t: t.optim.lr_scheduler.LRScheduler(setup(t)[1]),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_errors(case: str) -> None:
    same(ERRORS[case])


@pytest.mark.parametrize("name", ["LambdaLR", "MultiplicativeLR"])
def test_function_schedules_save_callable_objects_state(name: str) -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        warm = Warmup(3)
        sched = getattr(t.optim.lr_scheduler, name)(opt, [lambda e: 0.5, warm])
        saved = sched.state_dict()
        saved["lr_lambdas"][1]["n"] = 10
        _, other_opt = setup(t)
        other_warm = Warmup(3)
        other = getattr(t.optim.lr_scheduler, name)(other_opt, [lambda e: 0.5, other_warm])
        other.load_state_dict(saved)
        return saved["lr_lambdas"], other_warm.n, warm.n, sorted(saved)

    same(program)


@pytest.mark.parametrize("t_mult", [1, 3])
def test_warm_restarts_with_fractional_epochs(t_mult: int) -> None:
    def program(t: ModuleType) -> Any:
        _, opt = setup(t)
        sched = t.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=t_mult)
        seen = []
        for epoch in range(10):
            for i in range(4):
                opt.step()
                sched.step(epoch + i / 4)
                seen.append((bits(sched.get_last_lr()), sched.last_epoch, sched.T_cur, sched.T_i))
        return seen, sched._step_count, list(sched.state_dict())

    same(program)


def test_the_old_base_name_is_still_a_base_to_subclass() -> None:
    def program(t: ModuleType) -> Any:
        base = t.optim.lr_scheduler._LRScheduler

        class Halving(base):
            def get_lr(self) -> list[float]:
                return [group["lr"] / 2 for group in self.optimizer.param_groups]

        _, opt = setup(t)
        sched = Halving(opt)
        opt.step()
        sched.step()
        return (
            base.__name__,
            [c.__name__ for c in base.__mro__],
            issubclass(base, t.optim.lr_scheduler.LRScheduler),
            bits(sched.get_last_lr()),
        )

    same(program)
