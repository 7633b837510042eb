"""RMSprop: divide each step by a running root-mean-square of the gradient, owned per parameter.

Per parameter ``p`` with gradient ``g``, torch's single-tensor algorithm, step for step (each
state tensor is written in place, so its ``_version`` moves as torch's does)::

    g = -g if maximize
    step += 1                                             (a float32 0-d tensor, in place)
    g = g + weight_decay * p                              if weight_decay != 0
    square_avg.mul_(alpha).addcmul_(g, g, value=1 - alpha)   (two writes)
    grad_avg.lerp_(g, 1 - alpha)                          if centered (one write)
    avg = sqrt(square_avg - grad_avg**2 if centered else square_avg) + eps   (a new tensor)
    if momentum > 0: buf.mul_(momentum).addcdiv_(g, avg); p.add_(buf, alpha=-lr)
    else:            p.addcdiv_(g, avg, value=-lr)

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0, -1.0]))
>>> opt = RMSprop([p], lr=0.01)
>>> (p * p).sum().backward()
>>> opt.step()
>>> p, sorted(opt.state[p])
(Parameter containing:
tensor([ 0.9000, -0.9000], requires_grad=True), ['square_avg', 'step'])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ownership.core.tensor import Tensor
from ownership.ops.creation import zeros_like
from ownership.optim.fused_writes import addcdiv_, addcmul_, lerp_
from ownership.optim.optimizer import Optimizer, check_lr, new_step, steps_as_tensors

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (see the module docs for the update); torch's defaults: ``lr=1e-2``, ``alpha=0.99``.

    State per parameter, made on its first step: ``step``, ``square_avg``, plus
    ``momentum_buffer`` when ``momentum > 0`` and ``grad_avg`` when ``centered``. Refuses
    (``ValueError``, torch's wording, in torch's order) a negative ``lr``, ``eps``,
    ``momentum``, ``weight_decay`` or ``alpha``. ``capturable``, ``foreach`` and
    ``differentiable`` choose among torch's implementations: kept only so that groups and
    ``state_dict()`` read as torch's.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_lr(lr)
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    _loaded_defaults = (
        ("momentum", 0),
        ("centered", False),
        ("foreach", None),
        ("maximize", False),
        ("differentiable", False),
        ("capturable", False),
    )

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Take ``state`` (unpickling, ``load_state_dict``); a number ``step`` becomes a tensor
        again (:func:`~ownership.optim.optimizer.steps_as_tensors`)."""
        super().__setstate__(state)
        steps_as_tensors(self)

    _group_reads = ("lr", "alpha", "eps", "weight_decay", "momentum", "centered")

    def _state_reads(self, group: dict[str, Any]) -> tuple[str, ...]:
        momentum = ("momentum_buffer",) if group["momentum"] > 0 else ()
        return ("square_avg", "step", *momentum, *(("grad_avg",) if group["centered"] else ()))

    def _init_state(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        state["step"] = new_step()
        state["square_avg"] = zeros_like(param)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(param)
        if group["centered"]:
            state["grad_avg"] = zeros_like(param)

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        momentum, alpha = group["momentum"], group["alpha"]
        if group["maximize"]:
            grad = -grad
        step_t: Tensor = state["step"]
        step_t += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg: Tensor = state["square_avg"]
        addcmul_(square_avg.mul_(alpha), grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg: Tensor = state["grad_avg"]
            lerp_(grad_avg, grad, 1 - alpha)
            avg = (square_avg - grad_avg * grad_avg).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(group["eps"])
        if momentum > 0:
            buf: Tensor = state["momentum_buffer"]
            addcdiv_(buf.mul_(momentum), grad, avg)
            param.add_(buf, alpha=-group["lr"])
        else:
            addcdiv_(param, grad, avg, value=-group["lr"])
