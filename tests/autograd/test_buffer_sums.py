"""Gradients that meet at one input are summed into the engine's buffer as torch sums them.

The second and later gradients for an input are added in place into a buffer nobody else sees
(its version goes up, and a stolen buffer brings that version to ``.grad``). With grad mode off
and nobody watching writes, the engine adds them with numpy directly instead of through
``add_``: both paths give torch's values, dtypes, versions and warnings (an overflow to ``inf``
warns nothing).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import ownership
from ownership.core import observers

from support.differential import same

DTYPES = ("float32", "float64")
SCALES = {"finite": 1.0, "overflow": 0.25}  # of the dtype's largest number: x + x overflows


def meeting(t: ModuleType, dtype: str, size: str) -> list[Any]:
    """A leaf reached by three gradients (``x * x`` twice, ``x * 2``), and a non-leaf's."""
    dt = getattr(t, dtype)
    scale = SCALES[size] * (float(np.finfo(dtype).max) if size == "overflow" else 1.0)
    x = t.tensor(np.linspace(-2, 3, 6) * scale, dtype=dt, requires_grad=True)
    h = x * 1.5
    h.retain_grad()
    loss = (x * x).sum() + (x * 2).sum() + (h * h).sum() + h.sum()
    loss.backward()
    assert x.grad is not None and h.grad is not None
    return [x.grad, x.grad.dtype, x.grad._version, h.grad, h.grad._version]


@pytest.mark.parametrize("size", SCALES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_summed_buffers_are_torchs(dtype: str, size: str) -> None:
    same(lambda t: meeting(t, dtype, size))


@pytest.mark.parametrize("size", SCALES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_the_direct_sum_is_add_(dtype: str, size: str) -> None:
    """The same backward with a write observer registered, which sends the sum through ``add_``."""
    direct = meeting(ownership, dtype, size)
    written: list[str] = []
    observers.WRITES.append(lambda tensor, name: written.append(name))
    try:
        through_add_ = meeting(ownership, dtype, size)
    finally:
        observers.WRITES.pop()
    assert "AddBackward0" in written  # the observed path is add_
    for a, b in zip(direct, through_add_, strict=True):
        if isinstance(a, ownership.Tensor):
            assert a.dtype is b.dtype and a.stride() == b.stride()
            np.testing.assert_array_equal(a.numpy(), b.numpy())  # bit for bit: the same add
        else:
            assert a == b
