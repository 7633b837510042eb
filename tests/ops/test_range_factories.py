"""``arange`` and ``linspace``: every element bit for bit as torch's CPU kernels compute it (their
formula, accumulate type, SIMD blocks and fused multiply-adds: ``ownership.ops.range_factories``),
for float32, float64 and the ints, lengths below and above two SIMD vectors and the parallel
grain, and torch's length of an int range with fractional bounds."""

from __future__ import annotations

import random
from typing import Any

import pytest

from support.differential import same

DTYPES = [None, "float32", "float64", "int64", "int32"]


def _dtype(t: Any, name: str | None) -> dict[str, Any]:
    return {} if name is None else {"dtype": getattr(t, name)}


def _bits(x: Any) -> Any:
    """A tensor and its bytes: ``same`` compares floats with a tolerance, bytes exactly."""
    return x, x.numpy().tobytes()


def _arange_cases() -> list[tuple[Any, Any, Any]]:
    rng = random.Random(27)
    cases: list[tuple[Any, Any, Any]] = [
        (-8.0, 8.0, 0.1),  # the issue's: element 80 is 4.44e-16 in torch
        (0, 10, 1),
        (0.0, 1.0, 1 / 3),
        (1e6, 1e6 + 50, 0.3),
        (5, -5, -0.7),
        (0, 3000, 0.0137),  # 218979 elements: split among threads
        (0, 1, 1 / 32769),  # just above the grain
    ]
    for _ in range(40):
        start = rng.choice([0, -3.3, 0.1, rng.uniform(-100, 100), rng.randint(-50, 50)])
        step = rng.choice([0.1, 0.01, 1 / 7, rng.uniform(0.001, 3), -rng.uniform(0.001, 3), 2])
        length = rng.choice([1, 7, 8, 15, 16, 17, 31, 32, 33, 64, 65, 160, rng.randint(1, 3000)])
        cases.append((start, start + step * length + rng.uniform(-0.5, 0.5) * step, step))
    return cases


ARANGE = _arange_cases()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(ARANGE)))
def test_arange_is_torchs_bit_for_bit(case: int, dtype: str | None) -> None:
    start, end, step = ARANGE[case]
    same(lambda t: _bits(t.arange(start, end, step, **_dtype(t, dtype))))


def test_the_issues_element_and_relus_gradient_there_are_torchs() -> None:
    def program(t: Any) -> Any:
        x = t.arange(-8.0, 8.0, 0.1, requires_grad=True)
        x.relu().sum().backward()
        return x[80].item(), x.grad[78:83]

    same(program)


@pytest.mark.parametrize(
    "args",
    [(0, 5, 0.3), (0, 5, 1.5), (0, 5.5, 1), (0.5, 5, 1), (-0.5, 5, 1), (7, -2.5, -1.5)],
)
@pytest.mark.parametrize("dtype", ["int64", "int32", "float32"])
def test_an_int_range_with_fractional_bounds_has_torchs_length(args: Any, dtype: str) -> None:
    same(lambda t: t.arange(*args, **_dtype(t, dtype)))


def _linspace_cases() -> list[tuple[Any, Any, int]]:
    rng = random.Random(2713)
    cases: list[tuple[Any, Any, int]] = [
        (0.0, 1.0, 5),
        (-1.0, 1.0, 100),
        (0.3, 7.7, 33),
        (-5, 10, 16),
        (3.0, 3.0, 4),
        (1.0, -1.0, 1),
        (0.0, 1.0, 0),
        (-3.3, 7.7, 40000),
    ]
    for _ in range(30):
        start = rng.choice([0, -3.3, 0.1, rng.uniform(-100, 100), rng.randint(-50, 50)])
        end = rng.choice([rng.uniform(-100, 100), 1.0, 10, 1e5])
        cases.append((start, end, rng.choice([2, 3, 7, 8, 9, 16, 17, 101, rng.randint(1, 5000)])))
    return cases


LINSPACE = _linspace_cases()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(LINSPACE)))
def test_linspace_is_torchs_bit_for_bit(case: int, dtype: str | None) -> None:
    start, end, steps = LINSPACE[case]
    same(lambda t: _bits(t.linspace(start, end, steps, **_dtype(t, dtype))))
