"""Parameters as one vector, and back: who owns the memory afterwards.

``parameters_to_vector`` concatenates flattened views into a *new* tensor (a copy, recorded as
``CatBackward0``). ``vector_to_parameters`` replaces each parameter's ``.data`` by a slice of
the vector: afterwards the parameters *alias* the vector's memory (writes to the vector show
in them) but keep their own version counters, so those writes go unnoticed by their versions.

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.zeros(2))
>>> vec = ownership.tensor([1.0, 2.0])
>>> vector_to_parameters(vec, [p])
>>> _ = vec.add_(1)
>>> p.tolist(), p._version, p.data_ptr() == vec.data_ptr()
([2.0, 3.0], 0, True)
"""

from __future__ import annotations

from collections.abc import Iterable

from ownership.core.tensor import Tensor
from ownership.nn.typename import typename
from ownership.ops.joining import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """One new vector holding every parameter's values in order (differentiable)."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Make each parameter's ``.data`` the next slice of ``vec``, viewed in its shape."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        num = param.numel()
        param.data = vec[pointer : pointer + num].view_as(param).data
        pointer += num
