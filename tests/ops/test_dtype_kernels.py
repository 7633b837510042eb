"""Ops torch has no Bool kernel for refuse with its words, and clamp's result type follows
torch's promotion over self, min and max (a tensor bound included)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

C = [True, False]
M = [[True, False], [False, True]]

CASES: dict[str, Any] = {
    "abs_bool": lambda t: t.tensor(C).abs(),
    "abs_bool_0d": lambda t: t.abs(t.tensor(True)),
    "abs_int": lambda t: t.tensor([-1, 2]).abs(),
    "dot_bool": lambda t: t.tensor(C) @ t.tensor(C),
    "mv_bool": lambda t: t.tensor(M) @ t.tensor(C),
    "vm_bool": lambda t: t.tensor(C) @ t.tensor(M),
    "mm_bool": lambda t: t.tensor(M) @ t.tensor(M),
    "bmm_bool": lambda t: t.tensor([M]) @ t.tensor([M]),
    "clamp_bool_min": lambda t: t.tensor(C).clamp(min=False),
    "clamp_bool_max": lambda t: t.tensor(C).clamp(max=True),
    "clamp_bool_both": lambda t: t.tensor(C).clamp(False, True),
    "clamp_bool_int": lambda t: t.tensor(C).clamp(0, 1),
    "clamp_bool_float": lambda t: t.tensor(C).clamp(max=0.5),
    "clamp_bool_tensor_min": lambda t: t.tensor(C).clamp(min=t.tensor(False)),
    "clamp_bool_tensors": lambda t: t.tensor(C).clamp(t.tensor(False), t.tensor(True)),
    "clamp_bool_int_tensor": lambda t: t.tensor(C).clamp(min=t.tensor(0)),
    "clamp_int_float_tensor": lambda t: t.tensor([1, 5]).clamp(min=t.tensor(2.5)),
    "clamp_float_float64_tensor": lambda t: t.tensor([1.0, 5.0]).clamp(
        min=t.tensor([2.5, 0.0], dtype=t.float64)
    ),
    "clamp_int_scalars": lambda t: t.tensor([1, 5]).clamp(2, 3.5),
}


@pytest.mark.parametrize("program", CASES.values(), ids=CASES.keys())
def test_bool_kernels_and_clamp_promotion(program: Any) -> None:
    same(program)
