"""The one tolerance rule (ownership.tolerance): scaled to the tensor and the dtype, exact on
integers, and strict enough to catch a wrong value."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ownership.compare import differences, facts, side_by_side
from ownership.tolerance import DEFAULT, OPS, Tolerance, tolerance_for

EPS32 = float(np.finfo(np.float32).eps)


def test_a_cancelled_small_entry_is_judged_by_the_scale_of_its_tensor() -> None:
    """The issue's case: 0.0094 off by 1.5e-6 beside entries of 0.12 is float32 rounding."""
    torch_side = np.float32([0.043227, 0.118983, -0.015496, 0.009417630, 0.016956])
    other = torch_side.copy()
    other[3] = 0.009416118
    assert not np.allclose(other, torch_side, rtol=1e-5, atol=1e-6)  # the old, fixed rule
    assert DEFAULT.allows(torch_side, other)


def test_a_wrong_value_is_still_caught() -> None:
    expected = np.float32([0.5, 1.0, 2.0])
    assert not DEFAULT.allows(expected, np.float32([0.5, 1.0, 2.001]))  # 0.05 %
    assert not DEFAULT.allows(expected * 1e6, np.float32([0.5, 1.0, 2.001]) * 1e6)
    assert not DEFAULT.allows(np.float32([0.0, 0.0]), np.float32([0.0, 1e-3]))


def test_an_exact_zero_computed_as_noise_agrees() -> None:
    """A second derivative that is 0 exactly, computed by torch as 1e-17 (from terms of size 1)."""
    assert DEFAULT.allows(np.array([1.5e-17, 3e-17, 6.6e-17]), np.zeros(3))


def test_the_eps_is_that_of_the_least_precise_dtype() -> None:
    ones = np.ones(3)
    off = ones + 1e-9  # float32 rounding carried into a float64 tensor by .double()
    assert DEFAULT.allows(ones, off)
    assert not Tolerance(computed_in="float64").allows(ones, off)
    assert tolerance_for(torch.float64, computed_in="float64") == (OPS * 2.0**-52, OPS * 2.0**-52)
    assert tolerance_for(np.float32, 2.0) == (OPS * EPS32, 2 * OPS * EPS32)


@pytest.mark.parametrize("values", [[1, 2, 3], [True, False, True]])
def test_integers_and_booleans_compare_exactly(values: list[int]) -> None:
    expected = np.array(values)
    changed = expected.copy()
    changed[0] = not changed[0] if expected.dtype == bool else changed[0] + 1
    assert Tolerance(ops=1e12).allows(expected, expected)
    assert not Tolerance(ops=1e12).allows(expected, changed)
    assert tolerance_for("int64") == (0.0, 0.0) and tolerance_for("bool") == (0.0, 0.0)


def test_nan_agrees_with_nan_and_an_infinity_only_with_itself() -> None:
    assert DEFAULT.allows(np.float32([np.nan, np.inf]), np.float32([np.nan, np.inf]))
    assert not DEFAULT.allows(np.float32([np.nan, np.inf]), np.float32([np.nan, -np.inf]))
    assert not DEFAULT.allows(np.float32([np.nan, 1.0]), np.float32([1.0, 1.0]))


def test_python_floats_count_as_float32_results() -> None:
    """``loss.item()`` is a Python float of a float32 computation."""
    assert not differences(facts(0.1234567), facts(0.1234567 + 3e-8))
    assert differences(facts(0.1234567), facts(0.1234567 + 1e-4))


def test_ops_scales_the_tolerance() -> None:
    expected, off = np.float32([1.0]), np.float32([1.0 + 200 * EPS32])
    assert not DEFAULT.allows(expected, off)
    assert Tolerance(ops=4 * OPS).allows(expected, off)


def test_a_fixed_rtol_or_atol_is_refused_not_taken_for_an_engine() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'atol'"):
        side_by_side(lambda t: t.ones(1), torch=torch, copy=torch, atol=1e-5)
