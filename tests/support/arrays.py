"""What a numpy array shows of itself, for tests that check two ways of making the same view."""

from __future__ import annotations

from typing import Any


def array_facts(arr: Any, with_base: bool = True) -> tuple[Any, ...]:
    """Everything of a numpy view the engine or a user can see: type, sizes, strides, dtype,
    address, flags, and (``with_base``) the array it is a view of."""
    facts = (
        type(arr),
        arr.shape,
        arr.strides,
        arr.dtype,
        arr.__array_interface__["data"][0],
        arr.flags.writeable,
        arr.flags.owndata,
    )
    return (*facts, arr.base) if with_base else facts
