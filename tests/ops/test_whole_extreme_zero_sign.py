"""``t.max()``/``t.min()`` give torch's zero when the result is a zero: torch's ``max_all``
kernel combines vector lanes, so of tied ``+0.0`` and ``-0.0`` it keeps the one its lane order
keeps (``ownership.ops.reduction.whole_extreme``; fuzz program 317590)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from support.differential import same


def _cases() -> list[tuple[str, list[float], tuple[int, ...], bool]]:
    rng = random.Random(26)
    cases = []
    for size in (1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 33, 40, 64, 100):
        for _ in range(3):
            p = rng.random()
            vals = [
                rng.choice([0.0, -0.0]) if rng.random() < p else -rng.random() for _ in range(size)
            ]
            shape = (size // 4, 4) if size % 4 == 0 and size >= 8 else (size,)
            cases.append((rng.choice(["float32", "float64"]), vals, shape, rng.random() < 0.5))
    return cases


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c[0]}-{len(c[1])}-{c[3]}")
def test_the_zero_of_a_whole_max_or_min(case: Any) -> None:
    dtype, vals, shape, transposed = case

    def program(t: Any) -> Any:
        x = t.tensor(vals, dtype=getattr(t, dtype)).reshape(shape)
        if transposed and len(shape) == 2:
            x = x.t()  # not contiguous: torch reduces its elements in logical order
        hi, lo = x.max(), (-x).min()
        return [hi, lo, 1 / hi, 1 / lo]  # 1 / zero: the zero's sign as an infinity's

    same(program)


def test_the_issues_program() -> None:
    def program(t: Any) -> Any:
        t1 = t.tensor([[0.0, 0.25, -0.0], [3.0, 0.25, -0.5]], dtype=t.float64)
        return 1 / t1[[0, 0]].min()

    same(program)
