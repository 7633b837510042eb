"""``sign``: torch's kernel is ``(0 < x) - (x < 0)``, so NaN's sign is 0, and -0.0's is 0.0."""

from __future__ import annotations

from typing import Any

from support.differential import same


def test_sign_is_zero_for_nan_and_for_negative_zero() -> None:
    """torch's sign kernel is ``(0 < x) - (x < 0)`` (fuzz program 42556: ``sign`` of 0 / 0)."""

    def program(t: Any) -> Any:
        x = t.tensor([float("nan"), -0.0, 0.0, 2.5, -3.0, float("-inf")])
        y = x.sign()
        return y, 1 / y, t.tensor([True, False]).sign(), t.tensor([-2, 0, 5]).sign()

    same(program)
