"""The ``torch.*`` functions of shape: views (``reshape``, ``transpose``, ``narrow``...), splits
into several views, and ``broadcast_shapes``. Each parses torch's signatures and calls the method
of its input."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, cast

from ownership.core.layout import Size
from ownership.core.tensor import Tensor
from ownership.functions import _method

as_strided_ = _method(
    "as_strided_",
    "(Tensor input, tuple of ints size, tuple of ints stride, int storage_offset = None)",
)

# torch's own signatures of these functions (its named-dimension overloads are never printed)
flatten = _method("flatten", "(Tensor input, int start_dim = 0, int end_dim = -1)")
reshape = _method("reshape", "(Tensor input, tuple of ints shape)")
transpose = _method("transpose", "(Tensor input, int dim0, int dim1)")
permute = _method("permute", "(Tensor input, tuple of ints dims)")
unsqueeze = _method("unsqueeze", "(Tensor input, int dim)")
squeeze = _method(
    "squeeze", "(Tensor input)", "(Tensor input, int dim)", "(Tensor input, tuple of ints dim)"
)
unbind = _method("unbind", "(Tensor input, int dim = 0)")
chunk = _method("chunk", "(Tensor input, int chunks, int dim = 0)")
unsafe_chunk = _method("unsafe_chunk", "(Tensor input, int chunks, int dim = 0)")
unsafe_split = _method("unsafe_split", "(Tensor input, int split_size, int dim = 0)")
unsafe_split_with_sizes = _method(
    "unsafe_split_with_sizes", "(Tensor input, tuple of ints split_sizes, int dim = 0)"
)


def split(tensor: Any, split_size_or_sections: Any, dim: Any = 0) -> tuple[Tensor, ...]:
    """``tensor.split(split_size_or_sections, dim)``: torch's is Python, with these names."""
    return cast("tuple[Tensor, ...]", tensor.split(split_size_or_sections, dim))


diagonal = _method("diagonal", "(Tensor input, int offset = 0, int dim1 = 0, int dim2 = 1)")


narrow = _method(
    "narrow",
    "(Tensor input, int dim, Tensor start, int length)",
    "(Tensor input, int dim, int start, int length)",
)
select = _method("select", "(Tensor input, int dim, int index)")
t = _method("t", "(Tensor input)")


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
