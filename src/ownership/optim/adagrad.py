"""Adagrad: divide each step by the root of the sum of every squared gradient so far.

Unlike Adam's and RMSprop's, Adagrad's state exists from the start: the constructor gives every
parameter a ``step`` (a float32 0-d tensor) and a ``sum`` filled with
``initial_accumulator_value``, gradient or not (a group added later gets it on its first step). Per parameter ``p`` with gradient ``g``, torch's
single-tensor algorithm, step for step::

    step += 1                                   (in place)
    g = -g if maximize
    g = g + weight_decay * p                    if weight_decay != 0
    clr = lr / (1 + (step - 1) * lr_decay)      (Python floats)
    sum.addcmul_(g, g, value=1)                 (one write)
    p.addcdiv_(g, sqrt(sum) + eps, value=-clr)  (one write)

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0, -1.0]))
>>> opt = Adagrad([p], lr=0.1)
>>> sorted(opt.state[p])
['step', 'sum']
>>> (p * p).sum().backward()
>>> opt.step()
>>> p, opt.state[p]["sum"]
(Parameter containing:
tensor([ 0.9000, -0.9000], requires_grad=True), tensor([4., 4.]))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ownership.core.tensor import Tensor
from ownership.ops.creation import full_like
from ownership.optim.fused_writes import addcdiv_, addcmul_
from ownership.optim.optimizer import Optimizer, check_lr, new_step, steps_as_tensors

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (see the module docs for the update); torch's defaults: ``lr=1e-2``, ``eps=1e-10``.

    Refuses (``ValueError``, torch's wording, in torch's order) a negative ``lr``,
    ``lr_decay``, ``weight_decay``, ``initial_accumulator_value`` or ``eps``. As in torch, only
    the parameters given to the constructor get state: a group added later with
    ``add_param_group`` has none, and stepping it raises torch's ``KeyError: 'sum'``.
    ``foreach``, ``differentiable`` and ``fused`` choose among torch's implementations: kept
    only so that groups and ``state_dict()`` read as torch's.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_lr(lr)
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    _loaded_defaults = (
        ("foreach", None),
        ("maximize", False),
        ("differentiable", False),
        ("fused", None),
    )

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Take ``state`` (unpickling, ``load_state_dict``); a number ``step`` becomes a tensor
        again (:func:`~ownership.optim.optimizer.steps_as_tensors`)."""
        super().__setstate__(state)
        steps_as_tensors(self)

    _group_reads = ("lr", "weight_decay", "lr_decay", "eps")

    def _init_state(self, param: Tensor, group: dict[str, Any]) -> None:
        """``param``'s fresh state; its ``sum`` starts at the *optimizer's* default
        ``initial_accumulator_value`` (torch reads ``defaults``, not the group's)."""
        state = self.state[param]
        state["step"] = new_step()
        state["sum"] = full_like(param, self.defaults["initial_accumulator_value"])

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        state_sum: Tensor = state["sum"]
        step_t: Tensor = state["step"]
        step_t += 1
        step = step_t.item()
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        addcmul_(state_sum, grad, grad, value=1)
        std = state_sum.sqrt().add_(group["eps"])
        addcdiv_(param, grad, std, value=-clr)
