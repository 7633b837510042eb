"""A 0-d tensor's leftover size: the size torch's bounds check of ``x[i]`` reports for a 0-d ``x``.

torch keeps a tensor's sizes in ``SizesAndStrides``, whose inline slots are not cleared when the
tensor loses its dims in place: a 0-d tensor's first slot still holds the size its first dim had
then (``resize_(())`` of a ``(9, 2)`` tensor: 9; ``squeeze_()`` of a ``(1,)`` one: 1), where a
new tensor's holds 0. ``x[i]`` of a 0-d ``x`` (``applySelect``) reads that slot as the size of
dim 0: past it, "index 10 is out of bounds for dimension 0 with size 1"; within it (and not 0),
``select``'s refusal of a 0-dim tensor. ``max(0)`` and ``min(0)`` of a 1-d tensor leave 1 there
(their kernel unsqueezes the fresh 0-d result in place, then squeezes it). A shallow copy
(``detach()``, ``.data``, ``x.data = y``: ``Tensor._alias`` and the ``data`` setter) copies the
slots; a view's, a new tensor's are 0.

>>> import ownership
>>> v = ownership.tensor([3, 4, 5]).max(0).values
>>> leftover_size(v), leftover_size(v.detach()), leftover_size(v.clone())
(1, 1, 0)
"""

from __future__ import annotations

from typing import Any

from ownership.core.tensor import Tensor

__all__ = ["leftover_size", "shape_changed"]


def leftover_size(t: Tensor) -> int:
    """The size torch's 0-d ``t[i]`` reads for dim 0 (unset: a new tensor's 0)."""
    size: int = getattr(t, "_leftover_size", 0)
    return size


def shape_changed(t: Tensor, old_shape: tuple[Any, ...]) -> None:
    """After an in-place op changed ``t``'s shape from ``old_shape``: a tensor that lost all its
    dims keeps the first size it had (one that was 0-d already keeps its leftover size)."""
    if old_shape and not t._data.ndim:
        t._leftover_size = int(old_shape[0])
