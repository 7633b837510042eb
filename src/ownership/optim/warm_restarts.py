"""CosineAnnealingWarmRestarts: cosine annealing that restarts from ``initial_lr`` every cycle.

The lr follows ``eta_min + (initial_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``, where
``T_cur`` counts the epochs since the last restart and ``T_i`` is the current cycle's length
(``T_0``, then multiplied by ``T_mult`` at each restart). Its ``step`` is its own, as torch's: it
accepts a fractional ``epoch`` (``scheduler.step(epoch + i / iters)`` within an epoch) without
the deprecation warning, never warns about the order of steps, and leaves ``_step_count`` at 0.

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0]))
>>> opt = ownership.optim.SGD([p], lr=1.0)
>>> sched = CosineAnnealingWarmRestarts(opt, T_0=2)
>>> lrs = []
>>> for _ in range(4):
...     opt.step()
...     sched.step()
...     lrs.append(round(sched.get_last_lr()[0], 6))
>>> lrs, sched.T_cur, sched.T_i
([0.5, 1.0, 0.5, 1.0], 0, 2)
"""

from __future__ import annotations

import math

from ownership.optim.lr_scheduler_base import LRScheduler, set_group_value
from ownership.optim.optimizer import Optimizer

__all__ = ["CosineAnnealingWarmRestarts"]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing with warm restarts (see the module docs). Refuses (torch's
    ``ValueError``) a ``T_0`` that is not a positive int, a ``T_mult`` that is not an int of at
    least 1, an ``eta_min`` that is not a number, and a negative ``epoch`` given to ``step``."""

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, float | int):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The closed form at ``T_cur`` within the current cycle of length ``T_i``."""
        self._warn_if_outside_step()
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base_lr in self.base_lrs
        ]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch (restarting at the cycle's end), or jump to ``epoch`` (may be
        fractional), and write the lrs."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** (n)
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            set_group_value(group, "lr", lr)
        self._last_lr = self._group_lrs()
