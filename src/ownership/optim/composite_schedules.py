"""Schedules made of schedules: ``SequentialLR`` (one after another, switching at milestones)
and ``ChainedScheduler`` (all of them at every step).

Both own their schedulers: their ``state_dict()`` holds each one's ``state_dict()`` under
``'_schedulers'`` (last), and ``load_state_dict`` hands each its own back. Neither takes a
``ReduceLROnPlateau`` (it is stepped with a metric), and all the schedulers must drive the same
optimizer (torch's errors otherwise).

>>> import ownership
>>> from ownership.optim.lr_scheduler import ExponentialLR, LinearLR
>>> p = ownership.nn.Parameter(ownership.tensor([1.0]))
>>> opt = ownership.optim.SGD([p], lr=1.0)
>>> warmup = LinearLR(opt, start_factor=0.5, total_iters=2)
>>> decay = ExponentialLR(opt, gamma=0.5)
>>> sched = SequentialLR(opt, [warmup, decay], milestones=[2])
>>> lrs = [sched.get_last_lr()[0]]
>>> for _ in range(4):
...     opt.step()
...     sched.step()
...     lrs.append(sched.get_last_lr()[0])
>>> lrs
[0.5, 0.75, 1.0, 0.5, 0.25]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from ownership.optim.lr_scheduler_base import LRScheduler, set_group_value
from ownership.optim.optimizer import Optimizer
from ownership.optim.plateau import ReduceLROnPlateau

__all__ = ["ChainedScheduler", "SequentialLR"]


class _Composite(LRScheduler):
    """What the two composites share: the checks of their schedulers and how they are saved."""

    _schedulers: Sequence[LRScheduler]

    def _check_schedulers(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer) -> None:
        name = type(self).__name__
        for index, scheduler in enumerate(schedulers):
            if not hasattr(scheduler, "optimizer"):
                raise TypeError(
                    f"{name} at index {index} should have `optimizer` as its attribute."
                )
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ValueError(
                    f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                    "requires additional kwargs to be specified when calling `step`, "
                    f"but got one at index {index} in the given schedulers sequence."
                )
            if optimizer != scheduler.optimizer:
                raise ValueError(
                    f"{name} expects all schedulers to belong to the same optimizer, but "
                    f"got scheduler {type(scheduler).__name__} at index {index} has "
                    f"{scheduler.optimizer}, which is different from {type(optimizer).__name__}."
                )

    def state_dict(self) -> dict[str, Any]:
        """The composite's attributes but its optimizer, then each scheduler's ``state_dict()``
        under ``'_schedulers'``."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take over the saved attributes and give each scheduler its saved state
        (``state_dict`` itself is left as it was)."""
        schedulers = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = schedulers
        for index, saved in enumerate(schedulers):
            self._schedulers[index].load_state_dict(saved)


class SequentialLR(_Composite):
    """Run ``schedulers[0]`` until ``milestones[0]``, then ``schedulers[1]``, and so on.

    On creation it resets every group's lr to its ``initial_lr``, takes back the step each
    scheduler made when it was created, and redoes that step for the first scheduler only. At
    a milestone the next scheduler starts from its closed form at epoch 0. Refuses (torch's
    errors) no schedulers and a number of milestones that is not one less than of schedulers.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler, but got no scheduler."
            )
        self._check_schedulers(schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in self.optimizer.param_groups:
            set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched: LRScheduler | None = None) -> None:
        """Take one epoch back from every scheduler inside (nested composites included)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Step the scheduler whose turn it is (starting it afresh at its milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Step every scheduler, in order, at each ``step()``: their effects multiply."""

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got "
                "no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        self._check_schedulers(schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = self._schedulers[-1]._group_lrs()

    def step(self) -> None:  # type: ignore[override]
        """Step each scheduler in turn."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._schedulers[-1]._group_lrs()
