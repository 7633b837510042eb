"""SGD: stochastic gradient descent with optional momentum, dampening, Nesterov and weight decay.

Per parameter ``p`` with gradient ``g`` (torch's algorithm, step for step)::

    g = -g if maximize
    g = g + weight_decay * p                     if weight_decay != 0
    if momentum != 0:
        b = g (a copy) on the first step, else b = momentum * b + (1 - dampening) * g
        g = g + momentum * b if nesterov else b
    p -= lr * g                                  (in place: p's version goes up by one)

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0]))
>>> opt = SGD([p], lr=0.1, momentum=0.9)
>>> for _ in range(2):
...     opt.zero_grad()
...     (p * 2).sum().backward()
...     opt.step()
>>> round(p.item(), 6), opt.state[p]["momentum_buffer"]
(0.42, tensor([3.8000]))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ownership.core.tensor import Tensor
from ownership.optim.optimizer import Optimizer, check_lr

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (see the module docs for the update).

    Refuses (``ValueError``, torch's wording) a negative ``lr``, ``momentum`` or
    ``weight_decay``, and ``nesterov`` without a positive momentum and zero dampening. The
    group options are ``lr``, ``momentum``, ``dampening``, ``weight_decay``, ``nesterov`` and
    ``maximize``; groups also carry torch's ``foreach``, ``differentiable`` and ``fused``, which
    choose among torch's implementations: kept only so that groups and ``state_dict()`` read as
    torch's.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_lr(lr)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    LOADED_DEFAULTS = (
        ("nesterov", False),
        ("maximize", False),
        ("foreach", None),
        ("differentiable", False),
        ("fused", False),
    )
    _fresh: frozenset[int] = frozenset()  # the parameters without a buffer as the step began

    def _begin_step(self) -> None:
        """torch's SGD reads every parameter's momentum buffer before it updates any: a parameter
        listed twice in a group that had none starts a buffer at each listing (the last kept)."""
        self._fresh = frozenset(
            id(p)
            for group in self.param_groups
            for p in group["params"]
            if "momentum_buffer" not in self.state.get(p, {})
        )

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[param]
            buf = None if id(param) in self._fresh else state.get("momentum_buffer")
            if buf is None:
                buf = grad.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        param.add_(grad, alpha=-group["lr"])
