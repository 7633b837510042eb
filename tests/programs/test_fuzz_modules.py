"""The module fuzzer's fixed budget (:mod:`support.fuzz_modules`): module and optimizer programs
run under torch and ownership statement by statement, every module, optimizer and tensor compared
after every statement; and the rules it catches when an engine breaks them.

``python -m support.fuzz_modules --seed S --count N`` runs more (fresh seeds); a failure prints
the program, shrunk, as plain torch source.
"""

from __future__ import annotations

import contextlib
import io
from collections import OrderedDict
from typing import Any

import pytest
import torch

import ownership

from support.fuzz import budget, check, generate, replay, reproducer, shrink
from support.fuzz_modules import ModuleGenerator
from support.fuzz_statements import Statement

BUDGET = range(200)

# Programs that meet a known difference, by cause: each one the fuzzer found that is not fixed
# yet. Strict, so that each mark goes once its cause is fixed.
KNOWN: dict[int, str] = {}


@pytest.mark.parametrize("seed", budget(BUDGET, KNOWN))
def test_random_module_program_behaves_like_torch(seed: int) -> None:
    check(seed, ModuleGenerator)


def _program(*sources: str) -> list[Statement]:
    return [Statement("test", s) for s in sources]


def _kinds(statements: list[Statement]) -> frozenset[str]:
    outcome = replay(statements)
    assert outcome.difference is not None, "the planted bug went unnoticed"
    return outcome.difference.kinds


def test_a_tensor_taken_as_a_parameter_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``__setattr__`` that accepts a plain tensor for a parameter's name (torch refuses it)."""
    original = ownership.nn.Module.__setattr__

    def planted(self: Any, name: str, value: Any) -> None:
        if name in self.__dict__.get("_parameters", {}) and type(value) is ownership.Tensor:
            value = ownership.nn.Parameter(value)
        original(self, name, value)

    monkeypatch.setattr(ownership.nn.Module, "__setattr__", planted)
    program = _program(
        "torch.manual_seed(1); m1 = torch.nn.Linear(3, 2)", "m1.bias = torch.ones(2)"
    )
    assert "raised" in _kinds(program)


def test_a_state_dict_of_copies_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``state_dict`` whose values are copies, not the parameters' memory."""
    original = ownership.nn.Module.state_dict

    def planted(self: Any, *args: Any, **kwargs: Any) -> Any:
        return OrderedDict((k, v.clone()) for k, v in original(self, *args, **kwargs).items())

    monkeypatch.setattr(ownership.nn.Module, "state_dict", planted)
    program = _program(
        "torch.manual_seed(1); m1 = torch.nn.Linear(3, 2)", "t2 = m1.state_dict()['weight']"
    )
    assert "shares_memory_with" in _kinds(program)


def test_an_sgd_step_that_drops_dampening_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A momentum update off by its dampening: caught in the values, under the bounds."""
    original = ownership.optim.SGD._update

    def planted(self: Any, param: Any, grad: Any, group: dict[str, Any]) -> None:
        original(self, param, grad, {**group, "dampening": 0})

    monkeypatch.setattr(ownership.optim.SGD, "_update", planted)
    step = "m1(torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])).sum().backward()"
    program = _program(
        "torch.manual_seed(1); m1 = torch.nn.Linear(3, 2)",
        "o2 = torch.optim.SGD(m1.parameters(), lr=0.5, momentum=0.9, dampening=0.5)",
        step,
        "o2.step()",
        step,
        "o2.step()",
    )
    assert "values" in _kinds(program)


def test_a_clip_grad_norm_that_ignores_its_order_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``clip_grad_norm_`` that always takes the 2-norm: caught in the values (the total norm
    and the gradients it scales), under the bounds of torch's ``_foreach_norm`` and
    ``_foreach_mul_``."""
    original = ownership.nn.utils.clip_grad_norm_

    def planted(parameters: Any, max_norm: float, norm_type: Any = 2.0, **kwargs: Any) -> Any:
        return original(parameters, max_norm, 2.0, **kwargs)

    monkeypatch.setattr(ownership.nn.utils, "clip_grad_norm_", planted)
    program = _program(
        "torch.manual_seed(1); m1 = torch.nn.Linear(3, 2)",
        "m1(torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])).sum().backward()",
        "t2 = torch.nn.utils.clip_grad_norm_(m1.parameters(), 0.5, norm_type=1)",
    )
    assert "values" in _kinds(program)


def test_a_train_that_does_not_recurse_is_found_and_shrunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``train()`` that leaves the submodules alone (and still refuses a mode that is not a
    ``bool``): found by random programs, shrunk to a torch program that runs."""

    def planted(self: Any, mode: bool = True) -> Any:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        return self

    monkeypatch.setattr(ownership.nn.Module, "train", planted)
    outcomes = (generate(seed, ModuleGenerator) for seed in range(100))
    outcome = next(o for o in outcomes if o.difference is not None)
    small = shrink(outcome)
    assert len(small.statements) <= 4
    source = reproducer(small)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, "<reproducer>", "exec"), {"torch": torch})
