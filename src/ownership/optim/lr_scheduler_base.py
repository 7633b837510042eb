"""LRScheduler: the owner of the learning rates in an optimizer's ``param_groups``.

A scheduler writes ``group["lr"]`` of each of its optimizer's groups: once when it is made
(``last_epoch`` becomes 0, each group gets an ``initial_lr``) and once per ``step()``. Its
bookkeeping is torch's, attribute for attribute, so that ``state_dict()`` reads the same:
``base_lrs`` (the groups' ``initial_lr``), ``last_epoch``, ``_step_count``, ``_is_initial``,
``_get_lr_called_within_step`` and ``_last_lr`` (what ``get_last_lr()`` returns).

A group's ``lr`` may be a tensor: as in torch, a scheduler then fills that very tensor in place
(:func:`set_group_value`) and every list of lrs it keeps or returns holds copies of it
(:func:`group_values`), never the tensor itself.

The order rule: ``optimizer.step()`` first, then ``scheduler.step()``. As torch does, the
scheduler wraps its optimizer's ``step`` so that it notices a call; a second ``scheduler.step()``
(the first is the constructor's) with no ``optimizer.step()`` before it gives torch's warning.

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0]))
>>> opt = ownership.optim.SGD([p], lr=0.5)
>>> class Halving(LRScheduler):
...     def get_lr(self):
...         return [group["lr"] / 2 for group in self.optimizer.param_groups]
>>> sched = Halving(opt)
>>> sched.last_epoch, sched.get_last_lr(), opt.param_groups[0]["initial_lr"]
(0, [0.25], 0.5)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import wraps
from typing import Any
from weakref import ref

from ownership.core.tensor import Tensor
from ownership.optim.optimizer import Optimizer

__all__ = ["LRScheduler", "group_values", "set_group_value"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


class LRScheduler:
    """Base of the learning-rate schedulers; a subclass defines ``get_lr()`` (the next lrs).

    ``last_epoch=-1`` (the default) starts afresh: each group's ``lr`` is kept as its
    ``initial_lr`` (unless it has one). Any other ``last_epoch`` resumes, and needs every group
    to have an ``initial_lr`` already (torch's ``KeyError`` otherwise). A non-optimizer is
    refused with torch's ``TypeError``. Learning rates are Python numbers.
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group["lr"]
                if isinstance(initial_lr, Tensor):
                    initial_lr = initial_lr.clone()
                group.setdefault("initial_lr", initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)"
                    )
        self.base_lrs: list[Any] = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_calls(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """The constructor's step (``_step_count`` restarts at 0): ``last_epoch`` advances and the
        lrs are written, with ``_is_initial`` set so that a recursive schedule keeps them."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """Every attribute of the scheduler but its optimizer, by name (torch's structure)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take over a saved ``state_dict()``: its attributes replace the scheduler's."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` (or the constructor) gave each group."""
        return self._last_lr

    def get_lr(self) -> list[float]:
        """The next learning rate of each group (a subclass's rule); called by ``step()``.

        Called from outside ``step()``, it warns as torch does: ``get_last_lr()`` is the way to
        read the current rates.
        """
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advance ``last_epoch`` by one and write each group's next ``lr``.

        Warns (torch's words) when this is the scheduler's second step and its optimizer has
        not stepped yet, or when the optimizer's ``step`` was replaced after the scheduler
        wrapped it. ``epoch`` (deprecated, with torch's warning) sets ``last_epoch`` and uses
        the schedule's closed form where it has one.
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        """Advance ``last_epoch`` (or set it to ``epoch``, then use the closed form), write each
        group's lr and keep them as ``_last_lr``; no warning, no count of steps."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                values = self._closed_form_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = self._group_lrs()

    def _closed_form_lr(self) -> list[float]:
        """The lrs at ``last_epoch`` straight from ``base_lrs`` (for ``step(epoch)``); a
        schedule without a closed form uses its ``get_lr()``."""
        return self.get_lr()

    def _group_lrs(self) -> list[Any]:
        """Each group's current ``lr`` (a tensor one copied)."""
        return group_values(self.optimizer, "lr")

    def _warn_if_outside_step(self) -> None:
        """torch's warning when ``get_lr()`` is called by anyone but ``step()``."""
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, "
                "please use `get_last_lr()`.",
                UserWarning,
                stacklevel=1,  # torch's names its own lr_scheduler.py: this one, the engine's
            )


def group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """Each group's ``key``, a tensor copied (a list that aliases no group's tensor); torch's
    ``KeyError`` for a group without it."""
    return [
        group[key].clone() if isinstance(group[key], Tensor) else group[key]
        for group in optimizer.param_groups
    ]


def set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """``group[key] = value``, except that a tensor in the group is filled in place (with a
    1-element tensor value squeezed to 0-d first), as torch's schedulers write a tensor lr."""
    if isinstance(group[key], Tensor):
        if isinstance(value, Tensor) and value.dim() != 0:
            value = value.squeeze()
        group[key].fill_(value)
    else:
        group[key] = value


def _track_step_calls(optimizer: Optimizer) -> None:
    """Wrap ``optimizer.step`` (once) so that a call marks ``optimizer._opt_called``, as torch's
    schedulers do to notice a ``scheduler.step()`` made before any ``optimizer.step()``."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = ref(optimizer)
    func: Callable[..., Any] = optimizer.step.__func__  # type: ignore[attr-defined]

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = opt_ref()
        opt._opt_called = True  # type: ignore[union-attr]
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]
