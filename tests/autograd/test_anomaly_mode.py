"""Anomaly mode: torch's switches and messages, plus the lines of the writes in the version error.

torch's contract: ``detect_anomaly(check_nan=True)`` warns when made and switches the mode on in
its block; ``set_detect_anomaly(mode, check_nan=True)`` switches at once and restores on exit;
in the mode, the version error's hint changes and a warning names the forward call of the failing
node; with ``check_nan`` a backward returning NaN raises. The engine adds, after torch's text,
the writes made since the tensor was saved.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest
import torch

import ownership

from support.differential import same

ENGINES = [torch, ownership]


def _state(t: ModuleType) -> tuple[bool, bool]:
    return (t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled())


def test_switches_and_their_restoring() -> None:
    def program(t: Any) -> Any:
        seen = [_state(t)]
        with t.autograd.set_detect_anomaly(True, check_nan=False):
            seen.append(_state(t))
        seen.append(_state(t))
        t.autograd.set_detect_anomaly(True)  # as a plain call
        seen.append(_state(t))
        t.autograd.set_detect_anomaly(False)
        with t.autograd.detect_anomaly():  # no arguments: check_nan defaults to True
            seen.append(_state(t))
        with t.autograd.detect_anomaly(check_nan=False):
            seen.append(_state(t))
        seen.append(_state(t))
        return seen

    same(program)


def test_nan_check() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 0.0], requires_grad=True)
        with t.autograd.set_detect_anomaly(True):
            (x / x).sum().backward()

    # torch also warns 'Error detected in DivBackward0' with the forward stack; the engine keeps
    # forward stacks for saved tensors only, so it gives that warning for the version error only
    same(program, warnings=False)


def _version_error(t: ModuleType) -> tuple[str, list[str]]:
    x = t.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with t.autograd.detect_anomaly(check_nan=False):
            h = x.sigmoid()
            h.mul_(2)
            h.add_(1)
            with pytest.raises(RuntimeError) as info:
                h.sum().backward()
    return str(info.value), [str(w.message) for w in caught]


def test_the_version_error_in_anomaly_mode_adds_the_writes_after_torchs_text() -> None:
    torch_message, torch_warnings = _version_error(torch)
    own_message, own_warnings = _version_error(ownership)
    first, *extra = own_message.splitlines()
    assert first == torch_message
    assert torch_message.endswith("Good luck!")
    lines = _version_error.__code__.co_firstlineno
    assert extra == [
        "In-place writes since it was saved (ownership's anomaly mode; torch does not list them):",
        f'  version 1: File "{__file__}", line {lines + 6}, in _version_error',
        "    h.mul_(2)",
        f'  version 2: File "{__file__}", line {lines + 7}, in _version_error',
        "    h.add_(1)",
    ]
    assert own_warnings[0] == torch_warnings[0]  # "Anomaly Detection has been enabled. ..."
    head = "Error detected in SigmoidBackward0. Traceback of forward call that caused the error:"
    for caught in (torch_warnings, own_warnings):
        forward = caught[1].split(" (Triggered internally")[0].splitlines()
        assert forward[0] == head
        assert forward[-2:] == [
            f'  File "{__file__}", line {lines + 5}, in _version_error',
            "    h = x.sigmoid()",
        ]


def test_without_anomaly_mode_the_message_is_torchs_alone() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        h = x.exp()
        h.mul_(2)
        h.sum().backward()

    same(program)
