"""ReduceLROnPlateau: cut the learning rates when a watched metric stops improving.

Unlike the other schedules it is stepped with the metric (``scheduler.step(val_loss)``), does
not write the lrs when it is made, gives the groups no ``initial_lr`` and does not watch the
optimizer's ``step``: after more than ``patience`` epochs without an improvement (by
``threshold``, relative or absolute), each group's ``lr`` becomes ``max(lr * factor,
min_lr)`` (if that changes it by more than ``eps``), and ``cooldown`` epochs follow in which bad
epochs are not counted. Its attributes are torch's, so ``state_dict()`` reads the same.

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0]))
>>> opt = ownership.optim.SGD([p], lr=1.0)
>>> sched = ReduceLROnPlateau(opt, patience=1, factor=0.5)
>>> for val_loss in [3.0, 2.0, 2.0, 2.0, 2.0, 2.0]:
...     sched.step(val_loss)
>>> sched.get_last_lr(), sched.best, sched.num_bad_epochs
([0.25], 2.0, 0)
"""

from __future__ import annotations

import math
import warnings
from typing import Any, SupportsFloat

from ownership.optim.lr_scheduler_base import (
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    set_group_value,
)
from ownership.optim.optimizer import Optimizer

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(LRScheduler):
    """Reduce each group's lr by ``factor`` once the metric has not improved for more than
    ``patience`` steps (see the module docs).

    Refuses (torch's errors, in torch's order) ``factor >= 1``, a non-optimizer, a list of
    ``min_lr`` whose length is not the number of groups, and a ``mode`` or ``threshold_mode``
    it does not know.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.default_min_lr: float | None
        if isinstance(min_lr, list | tuple):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._group_lrs()
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        """Forget the best value and the counters."""
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: SupportsFloat, epoch: int | None = None) -> None:  # type: ignore[override]
        """Take this epoch's metric (a number or a one-element tensor) and reduce the lrs if
        it is more than ``patience`` epochs since the last improvement. ``epoch`` is deprecated
        (torch's warning) and sets ``last_epoch``."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._group_lrs()

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    "The number of param groups in the `optimizer` "
                    f"({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized "
                    f"({len(self.min_lrs)}), usually due to a new "
                    "param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length "
                    "of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self) -> bool:
        """Whether bad epochs are being ignored after a reduction."""
        return bool(self.cooldown_counter > 0)

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take over the saved attributes (and re-check ``mode`` and ``threshold_mode``)."""
        self.__dict__.update(state_dict)
        self._init_is_better(
            mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode
        )
