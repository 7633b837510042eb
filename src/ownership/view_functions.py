"""The ``torch.*`` functions of shape written by hand: ``split`` (torch's is Python, with Python's
binding) and ``broadcast_shapes``. The views (``reshape``, ``transpose``, ``narrow``...) are made
from their declarations in :mod:`ownership.ops.methods` (:mod:`ownership.functions`)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, cast

from ownership.core.layout import Size
from ownership.core.tensor import Tensor


def split(tensor: Any, split_size_or_sections: Any, dim: Any = 0) -> tuple[Tensor, ...]:
    """``tensor.split(split_size_or_sections, dim)``: torch's is Python, with these names."""
    return cast("tuple[Tensor, ...]", tensor.split(split_size_or_sections, dim))


def broadcast_shapes(*shapes: Any) -> Size:
    """The broadcast of several shapes, refused with the words of torch's own Python version.

    >>> broadcast_shapes((2,), (3, 1), (1, 1, 1))
    torch.Size([1, 3, 2])
    """
    given = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, got "
                f"{shape}"
            )
    common = [1] * builtins.max((len(s) for s in given), default=0)
    for index, shape in enumerate(given):
        for d in range(-1, -1 - len(shape), -1):
            if shape[d] == common[d]:
                continue
            if common[d] == 1:
                if shape[d] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[d] = shape[d]
            if shape[d] != 1 and common[d] != shape[d]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[d]} at {d}! "
                    f"Mismatching argument at index {index} had {shape}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    return Size(common)
