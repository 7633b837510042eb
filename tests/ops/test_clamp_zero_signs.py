"""relu and the clamps by a number keep an element equal to the bound: ``relu(-0.0)`` is ``-0.0``.

torch's kernels (``clamp_min``, ``clamp``: vectorised or not) compare with ``<`` and ``>``, so an
element equal to a number bound is kept as it is, and ``1 / torch.relu(torch.tensor([-2.0]) * 0.0)``
is ``-inf``. Values compare equal either way, so the programs return ``1 / y`` (the sign of a zero
as the sign of an infinity). The lengths cover torch's vectorised loop and its scalar tail.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

CLAMPS: dict[str, Any] = {
    "relu": lambda t, x: t.relu(x),
    "relu method": lambda t, x: x.relu(),
    "F.relu": lambda t, x: t.nn.functional.relu(x),
    "nn.ReLU": lambda t, x: t.nn.ReLU()(x),
    "relu_": lambda t, x: x.relu_(),
    "F.relu inplace": lambda t, x: t.nn.functional.relu(x, inplace=True),
    "clamp min": lambda t, x: x.clamp(min=0),
    "clamp both": lambda t, x: t.clamp(x, 0.0, 1.0),
    "clamp max -0.0": lambda t, x: x.clamp(max=-0.0),
    "clamp_": lambda t, x: x.clamp_(0, 1),
    "clamp_min": lambda t, x: x.clamp_min(0.0),
    "clamp_min_": lambda t, x: x.clamp_min_(0),
    "clamp_max": lambda t, x: x.clamp_max(0.0),
    "clamp_max -0.0": lambda t, x: t.clamp_max(x, -0.0),
    "clamp_max_": lambda t, x: x.clamp_max_(-0.0),
    "clip": lambda t, x: x.clip(0.0),
}


@pytest.mark.parametrize("length", [4, 37])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("clamp", CLAMPS.values(), ids=CLAMPS.keys())
def test_a_clamp_by_a_number_keeps_a_zero_equal_to_the_bound(
    clamp: Any, dtype: str, length: int
) -> None:
    def program(t: Any) -> Any:
        signs = t.tensor([-2.0, 2.0, -1.0, 3.0], dtype=getattr(t, dtype)).repeat(length) * 0.0
        x = t.cat([signs, t.tensor([float("nan"), -1.5, 0.5, 2.0], dtype=signs.dtype)])
        y = clamp(t, x)
        return [y, 1 / y]

    same(program)


def test_one_over_relu_of_minus_zero_is_minus_inf() -> None:
    """The issue's program: torch's relu keeps ``-0.0``."""
    assert same(lambda t: (1 / t.relu(t.tensor([-2.0]) * 0.0)).item()) == float("-inf")


def test_relu_of_minus_zero_has_torchs_gradient() -> None:
    def program(t: Any) -> Any:
        x = (t.tensor([-2.0, 0.0, 2.0]) * 0.0).requires_grad_()
        y = t.relu(x)
        (g,) = t.autograd.grad(y.sum(), x)
        return [1 / y, g, 1 / g]

    same(program)
