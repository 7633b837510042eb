"""AdamW: Adam whose weight decay shrinks the parameter itself, never the moments.

torch's ``AdamW`` is ``Adam`` with ``decoupled_weight_decay=True`` and a default
``weight_decay`` of ``1e-2``: each step first multiplies the parameter by ``1 - lr *
weight_decay`` (one more in-place write, so one more ``_version``), then takes Adam's step with
the plain gradient.

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0, -1.0]))
>>> opt = AdamW([p], lr=0.1)
>>> (p * p).sum().backward()
>>> opt.step()
>>> p, p._version, opt.param_groups[0]["decoupled_weight_decay"]
(Parameter containing:
tensor([ 0.8990, -0.8990], requires_grad=True), 2, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ownership.optim.adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay (default ``weight_decay=1e-2``); refuses what Adam does.

    Its groups always say ``decoupled_weight_decay: True``, even after loading the
    ``state_dict()`` of a plain ``Adam`` (torch keeps AdamW decoupled the same way).
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Take ``state`` as :class:`Adam` does, then mark every group decoupled again."""
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
