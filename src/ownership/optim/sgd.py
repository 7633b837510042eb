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

    _loaded_defaults = (
        ("nesterov", False),
        ("maximize", False),
        ("foreach", None),
        ("differentiable", False),
        ("fused", False),
    )
    _group_reads = ("weight_decay", "momentum", "lr", "dampening", "nesterov", "maximize")
    _fresh: frozenset[int]  # during a group's updates: its parameters without a buffer
    _made: dict[int, tuple[Tensor, Tensor]]  # and their new buffers, by parameter

    def _begin_group(self, group: dict[str, Any]) -> None:
        """torch's SGD reads the momentum buffers of the group's parameters before it updates
        any, and stores the new ones after all updates: a parameter listed twice without one
        starts a buffer at each listing (the last kept); a failed update stores none."""
        self._read_options(group)
        if group["momentum"] != 0:
            with_grad = [p for p in group["params"] if p.grad is not None]
            self._fresh = frozenset(
                id(p) for p in with_grad if "momentum_buffer" not in self.state[p]
            )
            self._made = {}

    def _end_group(self, group: dict[str, Any]) -> None:
        if group["momentum"] != 0:
            for param, buf in self._made.values():
                self.state[param]["momentum_buffer"] = buf

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            buf = None if id(param) in self._fresh else self.state[param].get("momentum_buffer")
            if buf is None:
                buf = grad.detach().clone()
                self._made[id(param)] = (param, buf)
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        param.add_(grad, alpha=-group["lr"])
