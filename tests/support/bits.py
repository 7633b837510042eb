"""``bits``: what a program returns to compare tensors bit for bit across the engines (``same``
compares floats within a tolerance; seeded random numbers must agree exactly)."""

from __future__ import annotations

from typing import Any


def bits(*tensors: Any) -> list[tuple[str, tuple[int, ...], str]]:
    """Each tensor's dtype, shape and the hex of its values' bytes (in its logical order)."""
    return [
        (str(x.dtype), tuple(x.shape), x.detach().contiguous().numpy().tobytes().hex())
        for x in tensors
    ]
