"""The initialisers of ``torch.nn.init`` (``ownership.nn.init``, their face): fill a tensor in
place, under ``no_grad``, with one version bump (as torch's).

Each function writes into the tensor it is given and returns that same tensor, so it works on a
Parameter that requires grad (a leaf that grad mode would refuse to write in place). The random
ones draw from the engine's generator, which is torch's (``ownership.random``): after the
same :func:`ownership.manual_seed` they give torch's values, bit for bit, since each computes its
bound or standard deviation in torch's order of operations.

>>> import ownership
>>> w = ownership.nn.Parameter(ownership.zeros(2, 3))
>>> constant_(w, 0.5) is w, w._version, w.requires_grad
(True, 1, True)
>>> _calculate_fan_in_and_fan_out(ownership.zeros(4, 3, 5))  # a receptive field of 5
(15, 20)
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ownership.core.grad_mode import no_grad
from ownership.core.tensor import Tensor
from ownership.core.warn_once import outside_level

_LINEAR = {
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "sigmoid",
}


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (torch's table: relu √2, tanh 5/3, ...).

    ``param`` is leaky_relu's negative slope (0.01 by default).
    """
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, int | float) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)``: inputs and outputs per unit (dims 1 and 0, times the rest), read
    by the methods torch's reads them by (``dim()``, ``size(1)``, ``size(0)``, ``dim()``: what
    torch's function mode sees)."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    fan_in, fan_out = int(tensor.size(1)), int(tensor.size(0))
    if tensor.dim() > 2:
        receptive_field = math.prod(int(n) for n in tensor.shape[2:])
        fan_in, fan_out = fan_in * receptive_field, fan_out * receptive_field
    return fan_in, fan_out


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with samples of U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with samples of N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with ones (``fill_``, as torch's mode sees it: not ``constant_``)."""
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with zeros."""
    with no_grad():
        return tensor.zero_()


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot: U(-a, a) with ``a = sqrt(3) * gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot: N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    """He's ``gain / sqrt(fan)``, or ``None`` (with torch's warning) for a tensor with no
    elements, which is left alone."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=outside_level())
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He: U(-bound, bound) with ``bound = sqrt(3) * gain / sqrt(fan)``.

    ``Linear`` uses ``a=sqrt(5)`` (leaky_relu's gain with that slope), which makes the bound
    ``1 / sqrt(fan_in)``. A tensor with no elements is left alone, with torch's warning.
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He: N(0, std**2) with ``std = gain / sqrt(fan)``. A tensor with no elements is left
    alone, with torch's warning."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0, std, generator)
