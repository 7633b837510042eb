"""``torch.nn.init``: the initialisers, which fill a tensor in place, under ``no_grad``, with one
version bump, and draw torch's values from the engine's generator (``ownership.ops.initialisers``).

torch handles ``constant_``, ``kaiming_uniform_``, ``uniform_`` and ``normal_`` as torch
functions: its function mode sees each as one call under its own name, so the first two are
called through the op table (the other two are the tensor's ``uniform_`` and ``normal_``); its
mode sees the others as the calls they make (``xavier_uniform_``: ``dim``, ``size``... then
``uniform_``).

>>> import ownership
>>> w = ownership.nn.Parameter(ownership.zeros(2, 3))
>>> ones_(w) is w, w._version, w.requires_grad
(True, 1, True)
>>> _calculate_fan_in_and_fan_out(w)
(3, 2)
"""

from __future__ import annotations

from ownership.ops import table
from ownership.ops.initialisers import (
    _calculate_correct_fan,
    _calculate_fan_in_and_fan_out,
    calculate_gain,
    kaiming_normal_,
    normal_,
    ones_,
    uniform_,
    xavier_normal_,
    xavier_uniform_,
    zeros_,
)
from ownership.ops.methods import of_table

__all__ = [
    "_calculate_correct_fan",
    "_calculate_fan_in_and_fan_out",
    "calculate_gain",
    "constant_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]

constant_ = of_table(table.constant_)
kaiming_uniform_ = of_table(table.kaiming_uniform_)
