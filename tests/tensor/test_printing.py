"""repr and format() of tensors: the same text as torch for the shapes and values a learner meets."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch as real

import ownership as torch

from support.differential import same

CASES = [
    lambda t: t.tensor([1.0, 2.0], requires_grad=True),
    lambda t: t.tensor([0.1, 0.2]),
    lambda t: t.tensor(3.0),
    lambda t: t.tensor([1e-5, 1.0]),
    lambda t: t.tensor([1e10, 1.0]),
    lambda t: t.tensor([True, False]),
    lambda t: t.tensor([1, 2]),
    lambda t: t.zeros(0),
    lambda t: t.zeros(0, 3),
    # an empty tensor shows every dtype but the default float one (no element shows it)
    lambda t: t.tensor([], dtype=t.int64),
    lambda t: t.zeros(0, 3, dtype=t.int64),
    lambda t: t.tensor([], dtype=t.bool),
    lambda t: t.tensor([], dtype=t.int32),
    lambda t: t.zeros(0, dtype=t.float64),
    lambda t: t.zeros(0, requires_grad=True),
    lambda t: t.tensor([1.5, -2.25]),
    lambda t: t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 2,
    lambda t: t.zeros(2, 3, dtype=t.float64),
    lambda t: t.tensor([1, 2], dtype=t.int32),
    lambda t: t.arange(200.0),
    lambda t: t.arange(2000.0).view(40, 50),
    lambda t: t.tensor([1.0, 2.0, 3.0], requires_grad=True).sum(),
    lambda t: t.tensor([float("nan"), float("inf"), -1.5]),
    lambda t: t.tensor([[0.12345, -123.5], [7.0, 0.001]]),
]


@pytest.mark.parametrize("make", CASES)
def test_repr_matches_torch(make) -> None:  # type: ignore[no-untyped-def]
    assert repr(make(torch)) == repr(make(real))


def test_repr_of_random_values_matches_torch() -> None:
    rng = np.random.default_rng(0)
    for shape in [(3,), (2, 3), (4, 2, 2)]:
        arr = rng.standard_normal(shape).astype(np.float32)
        assert repr(torch.tensor(arr)) == repr(real.tensor(arr))


def test_format_of_a_tensor_is_torchs() -> None:
    """``format(t, spec)`` (``printing.tensor_format``): a 0-d tensor as its number, any other
    tensor, and a 0-d Parameter, as ``object`` formats it (its ``str``, or a TypeError)."""

    def program(t: ModuleType) -> Any:
        outs: list[Any] = []
        for v in (t.tensor(2.5), t.tensor(3), t.tensor([1.0, 2.0]), t.nn.Parameter(t.tensor(1.0))):
            for spec in ("", ".3f", ">8"):
                try:
                    outs.append(format(v, spec))
                except TypeError as e:
                    outs.append(str(e))
        return outs

    same(program)
