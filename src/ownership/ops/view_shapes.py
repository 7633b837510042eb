"""The sizes and strides of ``view`` and ``expand``, with torch's rules and messages.

torch's ``infer_size`` (a ``-1`` in the sizes asked for), ``computeStride`` (the strides of a view
with other sizes, or none: the error that says to use ``reshape``) and ``inferExpandGeometry``
(stride 0 for an expanded dimension). Pure functions of sizes and strides in elements, used by
the view ops (:mod:`ownership.ops.view_geometry`) and the ops that lay out a result as a view
would; the tensor as a strided view over its storage is core's (:mod:`ownership.core.layout`).

>>> view_strides((2, 3), (3, 1), (6,))
(1,)
>>> view_strides((2, 3), (1, 2), (6,)) is None
True
>>> expand_strides((3, 1), (1, 1), (2, 3, 4))
(0, 1, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

from ownership.core.layout import Shape, contiguous_strides, numel

__all__ = ["VIEW_ERROR", "expand_strides", "infer_size", "view_strides"]


def infer_size(shape: Sequence[int], total: int) -> Shape:
    """Resolve one ``-1`` in a requested shape, with torch's messages."""
    shape = tuple(int(s) for s in shape)
    if -1 not in shape and (not shape or min(shape) >= 0) and numel(shape) == total:
        return shape  # the common case: every size given, and they fit
    infer = [i for i, s in enumerate(shape) if s == -1]
    if len(infer) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    known = numel([s for s in shape if s != -1])
    if infer:
        if known == 0 and total == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if known == 0 or total % known != 0:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {total}")
        out = list(shape)
        out[infer[0]] = total // known
        return tuple(out)
    if known != total:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {total}")
    return shape


def view_strides(
    shape: Sequence[int], strides: Sequence[int], new_shape: Sequence[int]
) -> Shape | None:
    """torch's computeStride: strides for viewing without copying, or None if impossible."""
    if len(shape) == 0:
        return tuple(1 for _ in new_shape)
    total = numel(shape)
    if total == 0:  # strides are arbitrary: torch keeps them for the same shape, else resizes
        return tuple(strides) if tuple(shape) == tuple(new_shape) else contiguous_strides(new_shape)
    if tuple(strides) == contiguous_strides(shape) and numel(new_shape) == total:
        # the common case, a row-major tensor: the loop below gives row-major strides (the
        # differential tests of views compare the two over every small shape)
        return contiguous_strides(new_shape)
    return _computed_strides(shape, strides, new_shape)


def _computed_strides(
    shape: Sequence[int], strides: Sequence[int], new_shape: Sequence[int]
) -> Shape | None:
    """computeStride's loop over the chunks of ``shape`` (a tensor with elements)."""
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (
            shape[tensor_d - 1] != 1 and strides[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)


def expand_strides(
    shape: Sequence[int], strides: Sequence[int], new_shape: Sequence[int], type_name: str = ""
) -> Shape:
    """Strides of ``expand`` (torch's ``inferExpandGeometry``): an expanded dim gets stride 0, a
    new one of size 1 the stride that steps over the dim after it (``ones(4).expand(1, 4)`` has
    strides ``(4, 1)``), any other new one 0 (torch's messages on misuse).

    ``type_name`` is how torch names the tensor's type in its message (``torch.FloatTensor``).
    """
    if len(new_shape) < len(shape):
        raise RuntimeError(
            f"expand({type_name or 'torch.FloatTensor'}{{{list(shape)}}}, size={list(new_shape)}): "
            "the number of sizes "
            f"provided ({len(new_shape)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({len(shape)})"
        )
    lead = len(new_shape) - len(shape)
    out: list[int] = []
    for i in range(len(new_shape) - 1, -1, -1):  # torch checks from the last dimension
        target = new_shape[i]
        if i < lead:
            if target < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            inner = i + 1 < len(new_shape) and target == 1
            out.append(new_shape[i + 1] * out[-1] if inner else 0)
            continue
        size, stride = shape[i - lead], strides[i - lead]
        if target == -1 or size == target:
            out.append(stride)
        elif size == 1:
            out.append(0)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size ({size}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(new_shape)}.  Tensor sizes: "
                f"{list(shape)}"
            )
    return tuple(reversed(out))
