"""Adam: per-parameter running averages of the gradient and of its square, owned by the optimizer.

Per parameter ``p`` with gradient ``g``, torch's single-tensor algorithm, step for step (each
state tensor is written in place, so its ``_version`` moves as torch's does)::

    g = -g if maximize
    step += 1                                   (a float32 0-d tensor, in place)
    p *= 1 - lr * weight_decay                  if decoupled_weight_decay
    g = g + weight_decay * p                    elif weight_decay != 0
    exp_avg.lerp_(g, 1 - beta1)                 (one write)
    exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)   (two writes)
    denom = sqrt(max_exp_avg_sq if amsgrad else exp_avg_sq) / sqrt(1 - beta2**step) + eps
    p.addcdiv_(exp_avg, denom, value=-lr / (1 - beta1**step))

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0, -1.0]))
>>> opt = Adam([p], lr=0.1)
>>> (p * p).sum().backward()
>>> opt.step()
>>> p, sorted(opt.state[p]), opt.state[p]["step"]
(Parameter containing:
tensor([ 0.9000, -0.9000], requires_grad=True), ['exp_avg', 'exp_avg_sq', 'step'], tensor(1.))
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ownership.core.tensor import Tensor
from ownership.ops.creation import zeros_like
from ownership.optim.fused_writes import addcdiv_, addcmul_, lerp_, maximum_
from ownership.optim.optimizer import Optimizer, check_lr, new_step, steps_as_tensors

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (see the module docs for the update); ``amsgrad`` keeps ``max_exp_avg_sq`` too.

    Refuses (``ValueError``, torch's wording) a negative ``lr``, ``eps`` or ``weight_decay``
    and a beta outside ``[0, 1)``. The group options are torch's: ``lr``, ``betas``, ``eps``,
    ``weight_decay``, ``amsgrad``, ``maximize``, ``decoupled_weight_decay``, and ``foreach``,
    ``capturable``, ``differentiable``, ``fused``, which choose among torch's implementations
    and are kept only so that groups and ``state_dict()`` read as torch's.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError(
                "lr as a Tensor is not supported for capturable=False and foreach=True"
            )
        check_lr(lr)
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    _loaded_defaults = (
        ("amsgrad", False),
        ("maximize", False),
        ("foreach", None),
        ("capturable", False),
        ("differentiable", False),
        ("decoupled_weight_decay", False),
        ("fused", None),
    )

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Take ``state`` (unpickling, ``load_state_dict``); a number ``step`` becomes a tensor
        again (:func:`~ownership.optim.optimizer.steps_as_tensors`)."""
        super().__setstate__(state)
        steps_as_tensors(self)

    _group_reads = ("amsgrad", "lr", "weight_decay", "eps", "maximize")

    def _begin_group(self, group: dict[str, Any]) -> None:
        group["betas"]  # torch's Adam.step reads it before it makes any state
        super()._begin_group(group)

    def _state_reads(self, group: dict[str, Any]) -> tuple[str, ...]:
        most = ("max_exp_avg_sq",) if group["amsgrad"] else ()
        return ("exp_avg", "exp_avg_sq", *most, "step")

    def _init_state(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        state["step"] = new_step()
        state["exp_avg"] = zeros_like(param)
        state["exp_avg_sq"] = zeros_like(param)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(param)

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay = group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        step_t: Tensor = state["step"]
        step_t += 1
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg: Tensor = state["exp_avg"]
        exp_avg_sq: Tensor = state["exp_avg_sq"]
        lerp_(exp_avg, grad, 1 - beta1)
        addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1**step
        bias_correction2_sqrt = math.sqrt(1 - beta2**step)
        second = exp_avg_sq
        if group["amsgrad"]:
            best: Tensor = state["max_exp_avg_sq"]
            second = maximum_(best, exp_avg_sq)
        denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
        addcdiv_(param, exp_avg, denom, value=-lr / bias_correction1)
