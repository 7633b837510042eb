"""The fuzzer's tolerance (:mod:`support.fuzz_bounds`): it lets through what rounding decides and
catches what an engine gets wrong, whatever the scale.

The programs that differed only by rounding agree; an engine whose exact op is one ULP off, whose
float64 kernel has a float32-size error, or whose cast picks the wrong integer is caught; a decision
within its bound is undetermined, and so is what is computed from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import ownership

from support.fuzz import check, replay
from support.fuzz_bounds import Bounds
from support.fuzz_modules import ModuleGenerator
from support.fuzz_statements import Statement

TOLERANCE = {
    802733: "long() of exp of a sum of exps: 2.9e14 within its bound of an integer",
    803062: "g > 0 on a gradient that is 0 in exact arithmetic (1e-17, sign by rounding)",
    302184: "exp of 96: the relative error of its argument times 96",
    368615: "exp of 70: the relative error of its argument times 70",
}
"""Programs whose engines differed only by rounding, before the bound followed the computation."""


@pytest.mark.parametrize("seed", sorted(TOLERANCE))
def test_a_difference_of_rounding_passes(seed: int) -> None:
    check(seed)


MODULE_TOLERANCE = {
    93416: "clip_grad_norm_ by 0 of a gradient that cancels to -6e-08 or 0.0: a zero's sign",
}
"""Module programs (:mod:`support.fuzz_modules`) whose engines differed only by rounding."""


@pytest.mark.parametrize("seed", sorted(MODULE_TOLERANCE))
def test_a_module_program_that_differs_by_rounding_passes(seed: int) -> None:
    check(seed, ModuleGenerator)


def _program(*sources: str) -> list[Statement]:
    return [Statement("test", s) for s in sources]


def _off_by(method: str, wrong: Callable[[Any], Any]) -> Callable[..., Any]:
    original = getattr(ownership.Tensor, method)

    def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        return wrong(original(self, *args, **kwargs))

    return broken


def _one_ulp_up(t: Any) -> Any:
    """``t`` one ULP further from zero (an engine bug of the smallest size), as a new tensor."""
    a = t.detach().numpy()
    return ownership.tensor(np.nextafter(a, np.inf * np.sign(a)).tolist(), dtype=t.dtype)


@pytest.mark.parametrize("scale", ["1.5", "3e30", "1e-30"])
def test_an_exact_op_one_ulp_off_is_caught_at_any_scale(
    monkeypatch: pytest.MonkeyPatch, scale: str
) -> None:
    program = _program(f"t1 = torch.tensor([{scale}, 2.0])", "t2 = t1 + t1")
    assert replay(program).difference is None
    monkeypatch.setattr(ownership.Tensor, "__add__", _off_by("__add__", _one_ulp_up))
    found = replay(program).difference
    assert found is not None and found.fields == (("t2", "values"),)


def _scaled(t: Any, by: float) -> Any:
    return ownership.tensor((t.detach().numpy() * by).tolist(), dtype=t.dtype)


def test_an_exact_op_after_rounding_is_held_to_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # t2 carries exp's rounding (a few ULPs, so t3 some 20); 1e-5 (84 ULPs) is outside
    program = _program("t1 = torch.tensor([0.5, 1.5])", "t2 = t1.exp()", "t3 = t2 * 2")
    assert replay(program).difference is None
    monkeypatch.setattr(
        ownership.Tensor, "__mul__", _off_by("__mul__", lambda t: _scaled(t, 1 + 1e-5))
    )
    found = replay(program).difference
    assert found is not None and ("t3", "values") in found.fields


def test_a_float64_kernel_gets_no_float32_tolerance(monkeypatch: pytest.MonkeyPatch) -> None:
    program = _program("t1 = torch.tensor([0.5, 1.5], dtype=torch.float64)", "t2 = t1.exp()")
    assert replay(program).difference is None
    in_float32 = _off_by("exp", lambda t: t.float().double())
    monkeypatch.setattr(ownership.Tensor, "exp", in_float32)
    found = replay(program).difference
    assert found is not None and found.fields == (("t2", "values"),)


def test_a_determined_cast_is_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    # exp(1.5) * 2 = 8.96..., far from an integer: long() is 8 in any engine
    program = _program("t1 = torch.tensor([1.5])", "t2 = (t1.exp() * 2).long()")
    assert replay(program).difference is None
    monkeypatch.setattr(ownership.Tensor, "long", _off_by("long", lambda t: t + 1))
    found = replay(program).difference
    assert found is not None and found.fields == (("t2", "values"),)


def test_an_undetermined_decision_makes_everything_after_it_undetermined() -> None:
    bounds = Bounds()
    with bounds:
        t1 = torch.tensor([0.25, -0.5, -1.5], dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(t1.softmax(-1).mean(), [t1])  # 0 in exact arithmetic
        positive = g > 0
        picked = g[positive]
        counted = positive.long().sum()
        kept = torch.zeros(3, dtype=torch.float64)
        kept.masked_fill_(positive, 1.0)
        sure = g.abs() < 1  # far from its decision point: determined
    assert 0 < bounds.error(g).max() < 1e-14  # a float64 bound: a few ULPs of terms of size 1
    assert np.isinf(bounds.error(positive)).all()
    assert bounds.is_shapeless(picked) and not bounds.is_shapeless(counted)
    assert np.isinf(bounds.error(counted)).all()
    assert np.isinf(bounds.error(kept)).all()  # written in place from it
    assert (bounds.error(sure) == 0).all()
    assert not bounds.unhandled


def test_a_float32_bound_is_float32_sized() -> None:
    bounds = Bounds()
    with bounds:
        x32 = torch.tensor([0.5, 1.5]).exp()
        x64 = torch.tensor([0.5, 1.5], dtype=torch.float64).exp()
        exact = torch.tensor([0.5, 1.5]) * 2 + 1
    ratio = bounds.error(x32) / bounds.error(x64)
    assert np.allclose(ratio, float(np.finfo(np.float32).eps / np.finfo(np.float64).eps))
    assert (bounds.error(exact) == 0).all()


def test_max_over_a_dim_places_its_gradient_with_its_bound() -> None:
    """Program 1044171: ``max(dim)``'s backward (``value_selecting_reduction_backward``) places
    the gradient at the indices, as a selection does: its bound is the gradient's, where the
    index is determined, and the result is compared."""
    bounds = Bounds()
    with bounds:
        t1 = torch.tensor([[0.5, 1.5], [2.0, -1.0]], requires_grad=True)
        w = torch.tensor([0.5, 1.5]).exp()
        (g,) = torch.autograd.grad((t1.max(1).values * w).sum(), [t1])
    assert not bounds.unhandled
    e = bounds.error(g)
    assert e[0, 1] > 1e-7 and e[1, 0] > 1e-7  # where the gradient went: exp's bound
    assert e[0, 0] < 1e-40 and e[1, 1] < 1e-40  # the zeros: none to speak of


def test_an_empty_selection_by_an_undetermined_mask_is_shapeless() -> None:
    """Here the mask selects nothing; on a CPU whose kernel rounds the other way it selects one
    element: the empty result's shape is undetermined too, though it has no storage to name."""
    bounds = Bounds()
    with bounds:
        z = torch.tensor([0.0], dtype=torch.float64).exp() - 1  # 0, within a kernel's bound
        picked = z[z > 0]
        determined = z[torch.tensor([False])]
    assert picked.numel() == 0 and bounds.is_shapeless(picked)
    assert determined.numel() == 0 and not bounds.is_shapeless(determined)


def test_values_are_not_compared_once_the_bounds_run_diverges(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fuzz 910258: under the bounds' dispatch mode torch's copy of an inference tensor records
    no history, so ``register_hook`` on it is refused there, and the bounds miss the rest of the
    statement (exp's rounding: they stay 0, and a one-ULP difference of exp would fail). From
    that statement on values are not compared; the other facts still are. (Fuzz 652514
    diverged too, until the bounds' run read every grad_fn after each statement, as the
    compared runs do.)"""
    program = _program(
        "with torch.inference_mode():\n    t1 = torch.tensor([1.5, 0.5], requires_grad=True)",
        "t2 = t1.double()",
        "t4 = torch.tensor([1.5, 0.5])",
        "h3 = t2.register_hook(lambda g: None)\nt4.exp_()",
    )
    outcome = replay(program)
    assert outcome.difference is None and outcome.diverged == 3
    monkeypatch.setattr(ownership.Tensor, "exp_", _off_by("exp_", lambda t: t.add_(0)))
    found = replay(program).difference
    assert found is not None and {field for _, field in found.fields} == {"version"}


def test_the_bounds_run_diverges_where_it_raises_another_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fuzz 1004498: under the bounds' dispatch mode a view made in inference mode of a tensor
    that requires grad does not require grad, so the block's ``register_hook`` is refused there,
    while torch's run raises only at its ``backward``: both raised, but the bounds' run never
    made ``l``, whose values were then held to a bound of 0. A statement that raises another
    error in the bounds' run is where it diverges."""
    program = _program(
        "t1 = torch.tensor(-1.0, requires_grad=True)",
        "with torch.inference_mode():\n    t2 = t1.flatten()",
        "t3 = t2.exp()",
        "h4 = t3.register_hook(lambda g: g.double())\nl5 = (t3 * t3).sum()\nl5.backward()",
    )

    def ulps_up_in_place(t: Any) -> Any:  # through its memory: its history and version kept
        a = t.detach().numpy()
        for _ in range(3):  # 2 to 4 ULPs from torch's: within exp's bound, not 0
            a[...] = np.nextafter(a, np.inf * np.sign(a))
        return t

    monkeypatch.setattr(ownership.Tensor, "exp", _off_by("exp", ulps_up_in_place))
    outcome = replay(program)
    assert outcome.difference is None and outcome.diverged == 3 and outcome.raised[3]
