"""``ownership.optim.lr_scheduler``: torch's learning-rate schedules, formula for formula.

Each schedule computes the next ``lr`` of every group the way torch does: *recursively* from the
group's current ``lr`` where torch's ``get_lr()`` is recursive (``StepLR``, ``MultiStepLR``,
``ConstantLR``, ``LinearLR``, ``ExponentialLR``, ``PolynomialLR``, ``CosineAnnealingLR``,
``MultiplicativeLR``), and in closed form from ``base_lrs`` where torch's is (``LambdaLR``), with
the same operations in the same order, so that the floats agree bit for bit. The two schedules
of functions are in ``optim/lambda_schedules.py``, ``ReduceLROnPlateau`` (stepped with a metric)
in ``optim/plateau.py``, ``SequentialLR`` and ``ChainedScheduler`` in
``optim/composite_schedules.py``, ``CosineAnnealingWarmRestarts`` in ``optim/warm_restarts.py``, the
per-batch cycles ``CyclicLR`` and ``OneCycleLR`` (which cycle the momentum too) in
``optim/lr_scheduler_cyclic.py``. ``step(epoch)`` (deprecated) uses each schedule's closed form, as torch does.

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0]))
>>> opt = ownership.optim.SGD([p], lr=1.0)
>>> sched = StepLR(opt, step_size=2, gamma=0.5)
>>> lrs = []
>>> for _ in range(5):
...     opt.step()
...     sched.step()
...     lrs.append(sched.get_last_lr()[0])
>>> lrs, sched.last_epoch
([1.0, 0.5, 0.5, 0.25, 0.25], 5)
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable

from ownership.optim.composite_schedules import ChainedScheduler, SequentialLR
from ownership.optim.lambda_schedules import LambdaLR, MultiplicativeLR
from ownership.optim.lr_scheduler_base import LRScheduler
from ownership.optim.lr_scheduler_cyclic import CyclicLR, OneCycleLR
from ownership.optim.optimizer import Optimizer
from ownership.optim.plateau import ReduceLROnPlateau
from ownership.optim.warm_restarts import CosineAnnealingWarmRestarts

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]


class _LRScheduler(LRScheduler):
    """torch's old name of :class:`LRScheduler`, still subclassed by older code: a subclass of
    its own (so that its ``__name__`` is ``_LRScheduler``), nothing more."""


class StepLR(LRScheduler):
    """Multiply each group's ``lr`` by ``gamma`` every ``step_size`` epochs."""

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs, times ``gamma`` when ``last_epoch`` is a positive multiple of
        ``step_size``."""
        self._warn_if_outside_step()
        if (self.last_epoch == 0) or (self.last_epoch % self.step_size != 0):
            return self._group_lrs()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[float]:
        return [
            base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs
        ]


class MultiStepLR(LRScheduler):
    """Multiply each group's ``lr`` by ``gamma`` at each milestone epoch (a milestone given
    twice multiplies by ``gamma ** 2``: milestones are kept as a ``Counter``)."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs, times ``gamma ** count`` at a milestone."""
        self._warn_if_outside_step()
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        return [
            group["lr"] * self.gamma ** self.milestones[self.last_epoch]
            for group in self.optimizer.param_groups
        ]

    def _closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [
            base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
            for base_lr in self.base_lrs
        ]


class ConstantLR(LRScheduler):
    """Multiply the lr by ``factor`` for the first ``total_iters`` epochs, then restore it.
    Refuses (torch's ``ValueError``) a ``factor`` outside ``[0, 1]``."""

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """torch's recursive rule: times ``factor`` at epoch 0, times ``1 / factor`` at
        ``total_iters``, unchanged otherwise."""
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[float]:
        return [
            base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for base_lr in self.base_lrs
        ]


class LinearLR(LRScheduler):
    """Scale the lr linearly from ``start_factor`` to ``end_factor`` times ``initial_lr`` over
    ``total_iters`` epochs, then keep it. Refuses (torch's ``ValueError``) a ``start_factor``
    outside ``(0, 1]`` and an ``end_factor`` outside ``[0, 1]``."""

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """torch's recursive rule: the first epoch scales by ``start_factor``, each later one
        (up to ``total_iters``) by the ratio of consecutive factors."""
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        return [
            group["lr"]
            * (
                1.0
                + (self.end_factor - self.start_factor)
                / (
                    self.total_iters * self.start_factor
                    + (self.last_epoch - 1) * (self.end_factor - self.start_factor)
                )
            )
            for group in self.optimizer.param_groups
        ]

    def _closed_form_lr(self) -> list[float]:
        return [
            base_lr
            * (
                self.start_factor
                + (self.end_factor - self.start_factor)
                * min(self.total_iters, self.last_epoch)
                / self.total_iters
            )
            for base_lr in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiply each group's ``lr`` by ``gamma`` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs times ``gamma`` (unchanged by the constructor's step)."""
        self._warn_if_outside_step()
        if self._is_initial:
            return self._group_lrs()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay each group's lr as ``(1 - epoch / total_iters) ** power`` times ``initial_lr``,
    reaching 0 at ``total_iters`` and staying there."""

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """torch's recursive rule: the current lrs times the ratio of consecutive factors."""
        self._warn_if_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        decay_factor = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [group["lr"] * decay_factor for group in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[float]:
        return [
            (
                base_lr
                * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            )
            for base_lr in self.base_lrs
        ]


class CosineAnnealingLR(LRScheduler):
    """Anneal each group's lr from ``initial_lr`` to ``eta_min`` along half a cosine over
    ``T_max`` epochs, and back up over the next ``T_max`` (torch's recursive form)."""

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """torch's recursive rule: each lr from the previous one by the ratio of consecutive
        cosine factors (the restart epochs add the step instead)."""
        self._warn_if_outside_step()
        if self._is_initial:
            return self._group_lrs()
        if self._step_count == 1 and self.last_epoch > 0:
            return [
                self.eta_min
                + (base_lr - self.eta_min)
                * (1 + math.cos((self.last_epoch) * math.pi / self.T_max))
                / 2
                for base_lr in self.base_lrs
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups, strict=True)
            ]
        return [
            (1 + math.cos(math.pi * self.last_epoch / self.T_max))
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
            * (group["lr"] - self.eta_min)
            + self.eta_min
            for group in self.optimizer.param_groups
        ]

    def _closed_form_lr(self) -> list[float]:
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]
