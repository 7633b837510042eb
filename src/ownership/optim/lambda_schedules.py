"""The schedules of functions: ``LambdaLR`` and ``MultiplicativeLR``, one function per group.

Both take ``lr_lambda``, one callable for all groups or a list (or tuple) of one per group, and
save it as torch does: ``state_dict()["lr_lambdas"]`` holds ``None`` for a plain function or
lambda (they do not pickle) and a copy of the ``__dict__`` of a callable object, which
``load_state_dict`` puts back into this scheduler's own callables.

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0]))
>>> opt = ownership.optim.SGD([p], lr=1.0)
>>> sched = MultiplicativeLR(opt, lambda epoch: 0.5)
>>> for _ in range(3):
...     opt.step()
...     sched.step()
>>> sched.get_last_lr(), sched.state_dict()["lr_lambdas"]
([0.125], [None])
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from ownership.optim.lr_scheduler_base import LRScheduler
from ownership.optim.optimizer import Optimizer

__all__ = ["LambdaLR", "MultiplicativeLR"]

LrLambda = Callable[[int], float]


class _FunctionSchedule(LRScheduler):
    """A schedule driven by one function of the epoch per group (see the module docs)."""

    lr_lambdas: list[LrLambda]

    def __init__(
        self, optimizer: Optimizer, lr_lambda: LrLambda | list[LrLambda], last_epoch: int
    ) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, list | tuple):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        self._check_lambdas()
        super().__init__(optimizer, last_epoch)

    def _check_lambdas(self) -> None:
        """Refuse what this schedule cannot call (``LambdaLR`` checks nothing, as torch)."""

    def state_dict(self) -> dict[str, Any]:
        """The base's state, with ``lr_lambdas`` last: ``None`` per function, a copy of the
        ``__dict__`` per callable object."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take over the saved attributes; saved callable-object state goes into this
        scheduler's callables (``state_dict`` itself is left as it was)."""
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for idx, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)


class LambdaLR(_FunctionSchedule):
    """``lr = initial_lr * lr_lambda(last_epoch)`` (torch's ``ValueError`` if a list of
    functions does not have one per group)."""

    def __init__(
        self, optimizer: Optimizer, lr_lambda: LrLambda | list[LrLambda], last_epoch: int = -1
    ) -> None:
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self) -> list[float]:
        """``base_lr * lr_lambda(last_epoch)`` per group (closed form)."""
        self._warn_if_outside_step()
        return [
            base_lr * lmbda(self.last_epoch)
            for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)
        ]


class MultiplicativeLR(_FunctionSchedule):
    """``lr = lr * lr_lambda(last_epoch)`` each step after the first; refuses (torch's
    ``TypeError``) an ``lr_lambda`` that is not callable."""

    def __init__(
        self, optimizer: Optimizer, lr_lambda: LrLambda | list[LrLambda], last_epoch: int = -1
    ) -> None:
        super().__init__(optimizer, lr_lambda, last_epoch)

    def _check_lambdas(self) -> None:
        for lr_lambda in self.lr_lambdas:
            if not callable(lr_lambda):
                raise TypeError(
                    f"lr_lambda should be a function, but got {type(lr_lambda).__name__}"
                )

    def get_lr(self) -> list[float]:
        """The current lrs times ``lr_lambda(last_epoch)`` (unchanged by the constructor)."""
        self._warn_if_outside_step()
        if self._is_initial:
            return self._group_lrs()
        return [
            group["lr"] * lmbda(self.last_epoch)
            for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)
        ]
