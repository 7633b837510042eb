"""Memory formats: how a tensor of given sizes is laid out (``torch.contiguous_format``,
``torch.channels_last``...), with torch's strides, rank checks and the format its strides suggest.

A memory format is a request, not a property of a tensor: ``resize_(..., memory_format=...)``
lays the tensor out that way; ``preserve_format`` asks for the format another tensor's strides
suggest (:func:`suggested`). Strides are in elements (c10's ``MemoryFormat.h``).

>>> format_strides(channels_last, (2, 3, 4, 5))
(60, 1, 15, 3)
>>> suggested((2, 3, 4, 5), (60, 1, 15, 3))
torch.channels_last
"""

from __future__ import annotations

from collections.abc import Sequence

from ownership.core.layout import Shape, contiguous_strides, is_contiguous

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "format_contiguous",
    "format_strides",
    "memory_format",
    "preserve_format",
    "suggested",
]


class memory_format:
    """One of torch's memory formats (prints as ``torch.channels_last``); only the four module
    constants exist, as in torch."""

    __slots__ = ("name",)
    name: str

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError("cannot create 'torch.memory_format' instances")

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


def _constant(name: str) -> memory_format:
    fmt = object.__new__(memory_format)
    fmt.name = name
    return fmt


contiguous_format = _constant("contiguous_format")
channels_last = _constant("channels_last")
channels_last_3d = _constant("channels_last_3d")
preserve_format = _constant("preserve_format")

_RANKS = {"channels_last": 4, "channels_last_3d": 5}


CHANNELS_LAST_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}
"""The dims of a channels-last tensor from innermost to outermost (rank 4, rank 5)."""


def channels_last_strides(shape: Sequence[int]) -> Shape:
    """The strides of a channels-last tensor of ``shape`` (rank 4 or 5: torch's
    ``get_channels_last_strides``; no ``max(size, 1)``: a 0 size zeroes the outer strides)."""
    strides = [0] * len(shape)
    step = 1
    for d in CHANNELS_LAST_ORDER[len(shape)]:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def channels_last_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's ``is_contiguous(memory_format=...)`` of a rank-4 tensor for ``channels_last``
    (of a rank-5 one for ``channels_last_3d``): its strides are :func:`channels_last_strides`,
    ignoring dimensions of size 1."""
    expected = 1
    for d in CHANNELS_LAST_ORDER[len(shape)]:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _name(fmt: memory_format) -> str:
    """A format's name (``channels_last``): torch's own constants are read by name too."""
    return str(fmt)[len("torch.") :]


def format_contiguous(fmt: memory_format, shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's ``is_contiguous(memory_format=fmt)``: row-major for ``contiguous_format`` and
    ``preserve_format``; for a channels-last format, a tensor of its rank (4 for
    ``channels_last``, 5 for ``channels_last_3d``, any other rank is not) laid out channels
    innermost (:func:`channels_last_contiguous`).

    >>> format_contiguous(channels_last, (2, 3, 4, 5), (60, 1, 15, 3))
    True
    >>> format_contiguous(channels_last, (6,), (1,)), format_contiguous(preserve_format, (6,), (1,))
    (False, True)
    """
    rank = _RANKS.get(_name(fmt))
    if rank is None:
        return is_contiguous(shape, strides)
    return len(shape) == rank and channels_last_contiguous(shape, strides)


def format_strides(fmt: memory_format, shape: Sequence[int]) -> tuple[int, ...]:
    """The strides ``fmt`` gives a tensor of ``shape`` (torch's ``empty_tensor_restride``):
    row-major for ``contiguous_format``; channels innermost for the channels-last formats,
    which need rank 4 (``channels_last``) or 5 (``channels_last_3d``). Refuses
    ``preserve_format``, which has no strides of its own, with torch's message."""
    name = _name(fmt)
    if name == "contiguous_format":
        return contiguous_strides(shape)
    rank = _RANKS.get(name)
    if rank is None:
        raise RuntimeError("Unsupported memory formatPreserve")
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {name} format")
    return channels_last_strides(shape)


def _channels_last_like(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """c10's ``is_channels_last_strides_2d_s4`` / ``_3d_s5``: whether the strides of a rank 4 or
    5 tensor step through channels first (ambiguous size-1 cases count as contiguous)."""
    order = CHANNELS_LAST_ORDER.get(len(shape))
    if order is None or strides[1] == 0:
        return False
    least = 0
    for d in order:
        if shape[d] == 0 or strides[d] < least:
            return False
        if d == 0 and least == strides[1]:
            return False
        least = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return True


def suggested(shape: Sequence[int], strides: Sequence[int]) -> memory_format:
    """The format a tensor's strides suggest (torch's ``suggest_memory_format``): a channels-last
    one when a rank 4 or 5 tensor's strides are laid out that way, else ``contiguous_format``."""
    if _channels_last_like(shape, strides):
        return channels_last if len(shape) == 4 else channels_last_3d
    return contiguous_format
