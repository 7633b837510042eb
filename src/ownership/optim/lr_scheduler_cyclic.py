"""The schedules stepped once per *batch* that cycle the learning rate, and the momentum against
it: ``CyclicLR`` and ``OneCycleLR``, torch's code step by step.

Both write, besides each group's ``lr``, its momentum (``group["momentum"]``, or the first of
``group["betas"]`` for an optimizer with betas, as Adam's) when ``cycle_momentum`` (the
default; an optimizer with neither, as Adagrad, is refused with torch's ``ValueError``), and
keep their bounds in the groups (``max_momentum``, ``base_momentum``; ``OneCycleLR`` also
``max_lr`` and ``min_lr``). Their ``lr`` is computed afresh from the cycle position at every
step (no closed form of their own: ``step(epoch)`` uses the same rule).

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0]))
>>> opt = ownership.optim.SGD([p], lr=1.0, momentum=0.9)
>>> sched = CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2)
>>> lrs = []
>>> for _ in range(5):
...     opt.step()
...     sched.step()
...     lrs.append(round(sched.get_last_lr()[0], 6))
>>> lrs, round(opt.param_groups[0]["momentum"], 6)
([0.3, 0.5, 0.3, 0.1, 0.3], 0.85)
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from functools import partial
from typing import Any, Literal

from ownership.core.tensor import Tensor
from ownership.optim.lr_scheduler_base import LRScheduler, set_group_value
from ownership.optim.optimizer import Optimizer

__all__ = ["CyclicLR", "OneCycleLR"]


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """``param`` for each group: a list or tuple of one per group (else torch's
    ``ValueError``), or one value repeated; tensors are copied."""
    if isinstance(param, list | tuple):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(param)} values, param_groups has "
                f"{len(optimizer.param_groups)}."
            )
    else:
        param = [param] * len(optimizer.param_groups)
    return [p.clone() if isinstance(p, Tensor) else p for p in param]


def _can_cycle_momentum(optimizer: Optimizer) -> bool:
    """Whether the optimizer has betas (else a momentum; neither: torch's ``ValueError``)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    return "betas" in optimizer.defaults


def _start_momentum(
    optimizer: Optimizer,
    use_beta1: bool,
    max_momentums: list[Any],
    base_momentums: list[Any],
    last_epoch: int,
) -> None:
    """A fresh schedule starts each group at its max momentum and keeps both bounds in it."""
    if last_epoch == -1:
        for m_momentum, b_momentum, group in zip(
            max_momentums, base_momentums, optimizer.param_groups, strict=True
        ):
            _set_momentum(group, use_beta1, m_momentum)
            group["max_momentum"] = m_momentum
            group["base_momentum"] = b_momentum


def _set_momentum(group: dict[str, Any], use_beta1: bool, momentum: Any) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """Cycle each group's lr between ``base_lr`` and ``max_lr`` (up in ``step_size_up``
    batches, down in ``step_size_down``), the amplitude scaled per cycle (``triangular``: 1,
    ``triangular2``: halved each cycle) or per batch (``exp_range``: ``gamma ** batch``), or by
    ``scale_fn`` of the cycle or the batch (``scale_mode``); the momentum goes the other way
    between ``max_momentum`` and ``base_momentum``. Refuses an unknown ``mode`` without a
    ``scale_fn`` (torch's ``ValueError``)."""

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: Literal["triangular", "triangular2", "exp_range"] = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: Literal["cycle", "iterations"] = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_ref: Callable[[float], float]
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _can_cycle_momentum(optimizer)
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            _start_momentum(
                optimizer, self.use_beta1, self.max_momentums, self.base_momentums, last_epoch
            )
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        """The scaling of ``mode`` (and its ``scale_mode``), unless a ``scale_fn`` was given."""
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: Any) -> float:
        """The amplitude's scale at ``x`` (the cycle, or the batch): ``scale_fn``'s or the
        mode's."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))  # type: ignore[no-any-return]

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma**x  # type: ignore[no-any-return]

    def get_lr(self) -> list[float]:
        """Each group's lr at batch ``last_epoch`` of its cycle (and, with ``cycle_momentum``,
        its momentum written into the group), torch's operations in torch's order."""
        self._warn_if_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = []
        for base_lr, max_lr in zip(self.base_lrs, self.max_lrs, strict=True):
            base_height = (max_lr - base_lr) * scale_factor
            lrs.append(base_lr + base_height * self.scale_fn(at))
        if self.cycle_momentum:
            momentums = []
            for base_momentum, max_momentum in zip(
                self.base_momentums, self.max_momentums, strict=True
            ):
                base_height = (max_momentum - base_momentum) * scale_factor
                momentums.append(max_momentum - base_height * self.scale_fn(at))
            for group, momentum in zip(self.optimizer.param_groups, momentums, strict=True):
                _set_momentum(group, self.use_beta1, momentum)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """The base's state without the mode's scaling function; a ``scale_fn`` is kept as its
        ``__dict__`` if it is a callable object (a function or lambda is not saved: None)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take over a saved state (``state_dict`` loses its ``_scale_fn_custom``, as torch's);
        a saved ``scale_fn`` state updates the current ``scale_fn`` object."""
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


#: A phase of ``OneCycleLR``: its last step and the group keys of its start and end values.
Phase = dict[str, Any]


class OneCycleLR(LRScheduler):
    """One cycle over ``total_steps`` batches (or ``epochs * steps_per_epoch``): the lr rises
    from ``max_lr / div_factor`` to ``max_lr`` over the first ``pct_start`` of the steps, then
    falls to ``initial_lr / final_div_factor`` (with ``three_phase``: back to the initial lr,
    then down to the minimum), annealed by cosine or linearly; the momentum goes the other way.
    Torch's ``ValueError`` for each wrong argument, and for a step past ``total_steps``."""

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        self._schedule_phases: list[Phase] = _phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(self.optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            self.use_beta1 = _can_cycle_momentum(optimizer)
            max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            _start_momentum(optimizer, self.use_beta1, max_momentums, base_momentums, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start: Any, end: Any, pct: float) -> Any:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        if self._anneal_func_type == "linear":
            return self._annealing_linear(start, end, pct)
        raise ValueError(f"Unknown _anneal_func_type: {self._anneal_func_type}")

    @staticmethod
    def _annealing_cos(start: Any, end: Any, pct: float) -> Any:
        """Cosine anneal from ``start`` to ``end`` as ``pct`` goes from 0.0 to 1.0."""
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start: Any, end: Any, pct: float) -> Any:
        """Linearly anneal from ``start`` to ``end`` as ``pct`` goes from 0.0 to 1.0."""
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        """Each group's lr at step ``last_epoch`` of its phase (and, with ``cycle_momentum``,
        its momentum written into the group); past ``total_steps``, torch's ``ValueError``."""
        self._warn_if_outside_step()
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = self._anneal_func(
                        group[phase["start_lr"]], group[phase["end_lr"]], pct
                    )
                    if self.cycle_momentum:
                        computed_momentum = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                    break
                start_step = phase["end_step"]
            lrs.append(computed_lr)
            if self.cycle_momentum:
                _set_momentum(group, self.use_beta1, computed_momentum)
        return lrs


def _phases(pct_start: float, total_steps: int, three_phase: bool) -> list[Phase]:
    """torch's phases of a one-cycle schedule: up then down, or up, back and down."""
    up = float(pct_start * total_steps) - 1
    if three_phase:
        return [
            _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            _phase(
                float(2 * pct_start * total_steps) - 2,
                "max_lr",
                "initial_lr",
                "base_momentum",
                "max_momentum",
            ),
            _phase(total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
        ]
    return [
        _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
        _phase(total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
    ]


def _phase(end_step: float, start_lr: str, end_lr: str, start_m: str, end_m: str) -> Phase:
    return {
        "end_step": end_step,
        "start_lr": start_lr,
        "end_lr": end_lr,
        "start_momentum": start_m,
        "end_momentum": end_m,
    }
