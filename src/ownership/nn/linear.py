"""Linear: ``y = x Wᵀ + b``, with torch's default initialisation; Identity: ``y = x``.

>>> import ownership
>>> _ = ownership.manual_seed(0)
>>> lin = Linear(3, 2)
>>> lin
Linear(in_features=3, out_features=2, bias=True)
>>> [(name, tuple(p.shape), p._version) for name, p in lin.named_parameters()]
[('weight', (2, 3), 1), ('bias', (2,), 1)]
"""

from __future__ import annotations

import math
from typing import Any

from ownership.core.tensor import Tensor
from ownership.nn import functional as F
from ownership.nn import init
from ownership.nn.module import Module
from ownership.nn.parameter import Parameter
from ownership.ops.creation import empty

__all__ = ["Identity", "Linear"]


class Identity(Module):
    """A placeholder layer: its forward returns its input itself (no copy, no node).

    Any arguments to the constructor are accepted and ignored (torch's), so it can stand in
    for a layer that took some.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        """``input`` itself."""
        return input


class Linear(Module):
    """An affine map from ``in_features`` to ``out_features``.

    Owns ``weight`` (shape ``(out_features, in_features)``) and, unless ``bias=False``,
    ``bias`` (shape ``(out_features,)``; registered as ``None`` otherwise). Both start as
    torch's defaults: ``kaiming_uniform_(weight, a=sqrt(5))`` and ``bias ~ U(-1/sqrt(fan_in),
    1/sqrt(fan_in))``, so every value lies within ``1/sqrt(in_features)``; each has been
    written once (version 1).

    The forward is :func:`ownership.nn.functional.linear`, torch's route: a 2-D input gives
    ``AddmmBackward0`` (which saves the input, so a later in-place write on it breaks
    backward), a 3-D input a ``ViewBackward0`` over it.
    """

    in_features: int
    out_features: int
    weight: Parameter
    bias: Parameter | None

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh initial values (torch's scheme; the engine's generator)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        """``input @ weight.T + bias`` over the last dimension of ``input``."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The sizes and whether there is a bias, as torch prints them."""
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )
