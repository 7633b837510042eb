"""A tensor of torch itself given to the engine, compared with a numpy array given to torch.

A learner who mixes ``import torch`` with ``import ownership as torch`` hands the engine torch
tensors. The engine holds them to the rule torch holds a numpy array to: refused where torch
refuses one (the same exception and wording, the type named ``torch.Tensor``), read through
numpy where torch reads one (``x + a``). :func:`same_as_numpy` runs a program under torch with
a numpy array and under ownership with a torch tensor holding the same values and dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import torch

import ownership
from ownership.compare import Raised, Run, insist_agree, run

from support.differential import BROKEN

Foreign = Callable[[Any], Any]
"""Makes the foreign operand from Python data: a numpy array under torch, a torch tensor under
ownership."""


def _numpy(data: Any) -> Any:
    return torch.tensor(data).numpy()


def same_as_numpy(program: Callable[[ModuleType, Foreign], Any]) -> Any:
    """Run ``program(engine, foreign)`` under torch (``foreign`` makes numpy arrays) and under
    ownership (``foreign`` makes torch tensors); insist they agree, with ``numpy.ndarray`` in
    torch's messages read as ``torch.Tensor``. Returns what the engine returned (None if it
    raised). Warnings are not
    compared: torch 2.13 makes numpy 2 warn about its ``__array_wrap__`` when numpy computes
    ``x + a`` for it, which is no fact of the program."""
    runs = {
        "torch": run(lambda t: program(t, _numpy), torch),
        "ownership": run(lambda t: program(t, torch.tensor), ownership),
    }
    expected = runs["torch"].facts
    if isinstance(expected, Raised):
        assert expected.kind not in BROKEN, f"the program is broken under torch: {expected}"
        renamed = Raised(expected.kind, expected.message.replace("numpy.ndarray", "torch.Tensor"))
        runs["torch"] = Run(renamed, None, runs["torch"].warnings)
    insist_agree(runs, compare_warnings=False)
    return runs["ownership"].returned
