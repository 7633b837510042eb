"""A fixed, seeded sample of random programs (interpreted by support.programs), run differentially.

Complements the hypothesis search with a deterministic batch: the same 500 programs every run.
"""

from __future__ import annotations

import random
import warnings

import pytest

from support.differential import same
from support.programs import TABLE, run_program


def _programs(seed: int, n: int) -> list[tuple[list[tuple[int, int, int, str]], str, bool]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        steps = [
            (
                rng.randrange(len(TABLE)),
                rng.randrange(16),
                rng.randrange(16),
                rng.choice(["grad", "grad", "no_grad"]),
            )
            for _ in range(rng.randint(1, 10))
        ]
        finish = rng.choice(["backward", "backward_twice", "autograd_grad", "none"])
        out.append((steps, finish, rng.random() < 0.5))
    return out


@pytest.mark.parametrize("chunk", range(5))
def test_seeded_random_programs_behave_like_torch(chunk: int) -> None:
    for steps, finish, w_requires_grad in _programs(1000 + chunk, 100):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            same(
                lambda t, s=steps, f=finish, w=w_requires_grad: run_program(t, s, f, w),
            )
