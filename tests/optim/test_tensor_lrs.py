"""A learning rate held as a tensor: every schedule fills the group's very tensor in place (its
``_version`` counts the writes) and what it keeps or returns (``initial_lr``, ``base_lrs``,
``get_last_lr()``, ``get_lr()``) are copies that alias none of it, as torch's schedules do."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.optimizers import loss, params

SCHEDULES: dict[str, Any] = {
    "StepLR": lambda s, opt: s.StepLR(opt, step_size=2, gamma=0.5),
    "CosineAnnealingLR": lambda s, opt: s.CosineAnnealingLR(opt, T_max=4),
    "LambdaLR": lambda s, opt: s.LambdaLR(opt, lambda e: 0.9**e),
    "MultiplicativeLR": lambda s, opt: s.MultiplicativeLR(opt, lambda e: 0.9),
    "CosineAnnealingWarmRestarts": lambda s, opt: s.CosineAnnealingWarmRestarts(opt, T_0=3),
    "CyclicLR": lambda s, opt: s.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2),
    "OneCycleLR": lambda s, opt: s.OneCycleLR(opt, max_lr=0.2, total_steps=10),
    "SequentialLR": lambda s, opt: s.SequentialLR(
        opt, [s.ConstantLR(opt, factor=0.5, total_iters=2), s.ExponentialLR(opt, 0.9)], [3]
    ),
    "ChainedScheduler": lambda s, opt: s.ChainedScheduler(
        [s.ConstantLR(opt, factor=0.5, total_iters=2), s.ExponentialLR(opt, 0.9)]
    ),
}


def facts(values: list[Any], lr: Any) -> list[Any]:
    """Each value, and whether it is the group's lr tensor itself."""
    return [(v, v is lr) for v in values]


@pytest.mark.parametrize("name", SCHEDULES)
def test_a_tensor_lr_is_filled_in_place_and_never_aliased(name: str) -> None:
    def program(t: ModuleType) -> Any:
        ps = params(t)
        lr = t.tensor(0.1)
        opt = t.optim.SGD(ps, lr=lr, momentum=0.9)
        sched = SCHEDULES[name](t.optim.lr_scheduler, opt)
        group = opt.param_groups[0]
        base_lrs = getattr(sched, "base_lrs", [])  # a schedule of schedules has none
        seen = [facts([group["initial_lr"], *base_lrs], lr)]
        for k in range(8):
            opt.zero_grad()
            loss(t, *ps, k + 1).backward()
            opt.step()
            sched.step()
            seen.append((group["lr"] is lr, lr._version, facts(sched.get_last_lr(), lr)))
        return seen, lr, list(ps)

    same(program)


def test_reduce_lr_on_plateau_fills_a_tensor_lr() -> None:
    def program(t: ModuleType) -> Any:
        lr = t.tensor([0.1])
        opt = t.optim.SGD(params(t), lr=lr)
        sched = t.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        seen = []
        for metric in (1.0, 2.0, 3.0, 0.5):
            sched.step(metric)
            seen.append((opt.param_groups[0]["lr"] is lr, lr._version, sched.get_last_lr()))
        return seen, lr

    same(program)


def test_a_one_element_tensor_value_fills_a_tensor_lr() -> None:
    def program(t: ModuleType) -> Any:
        lr = t.tensor(0.1)
        opt = t.optim.SGD(params(t), lr=lr)
        sched = t.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5)
        opt.param_groups[0]["initial_lr"] = t.tensor([[0.4]])
        sched.base_lrs = [t.tensor([[0.4]])]
        opt.step()
        sched.step()
        return lr, lr._version, sched.get_last_lr()

    same(program)
