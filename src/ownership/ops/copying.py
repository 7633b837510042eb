"""Copies of a tensor: ``clone``, ``contiguous`` and ``to``, each a new storage at version 0 (or
the tensor itself when nothing has to change), each with its backward.

>>> import ownership
>>> x = ownership.zeros(2, 3).t()
>>> y = x.clone()
>>> y.data_ptr() != x.data_ptr(), y._version, x.contiguous().is_contiguous()
(True, 0, True)
>>> x.to(ownership.float32) is x
True
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ownership.core import layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.binder import Signatures
from ownership.core.dtypes import dtype as DType
from ownership.core.layout import preserved
from ownership.core.tensor import Tensor
from ownership.ops import checks
from ownership.ops.common import inference_kernel, needs_grad, run_op, wrap
from ownership.ops.memory_formats import format_strides, memory_format, preserve_format, suggested
from ownership.ops.op_table import ops


def preserved_copy(t: Tensor, dtype: DType) -> NDArray[Any]:
    """``t``'s values as ``dtype`` in fresh memory, laid out as torch's ``preserve_format``
    lays out a copy (:func:`~ownership.core.layout.preserved`): what ``clone`` and ``to`` return."""
    data = t._data
    flags = data.flags
    if data.size and (layout.row_major(data) or (flags.f_contiguous and 1 not in data.shape)):
        # numpy's copy is the same (its flags ignore a size-1 dim's stride, which torch keeps)
        return np.array(data, dtype=dtype.np, order="K", copy=True)
    # torch's empty_like(preserve_format), then copy_
    copied = preserved(data, t._stride(), dtype.np)
    if data.size:
        copied[...] = data
    return copied


def copied(source: Tensor, copy: Tensor) -> Tensor:
    """``copy``, the fresh result of ``clone``, ``contiguous`` or ``to`` of ``source``, as
    torch's kernel leaves it: that kernel allocates it and ``copy_``s ``source`` in, a call
    that autograd sees when ``source`` is an inference tensor out of inference mode
    (``ownership.ops.common.inference_kernel``). Then ``copy`` starts at version 1 and,
    when ``source`` requires grad and ``copy`` can, it is ``CopyBackwards``' output."""
    if inference_kernel(source):
        ops.copy_(copy, source)
    return copy


def _bw_clone(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d clone(self) = d self."""
    return (g[0],)


def clone(t: Tensor) -> Tensor:
    """A copy in fresh storage (version 0), ``CloneBackward0``, laid out as torch's
    ``preserve_format`` lays it out (:func:`preserved_copy`)."""

    def kernel() -> Tensor:
        return Tensor._wrap(preserved_copy(t, t.dtype), t.dtype)

    return copied(t, run_op((t,), needs_grad(t), kernel, "CloneBackward0", _bw_clone))


def contiguous(t: Tensor) -> Tensor:
    """``t`` itself when contiguous, else a row-major copy (``CloneBackward0``)."""
    if t._is_contiguous():
        return t

    def kernel() -> Tensor:
        return Tensor._wrap(np.ascontiguousarray(t._data), t.dtype)

    return copied(t, run_op((t,), needs_grad(t), kernel, "CloneBackward0", _bw_clone))


TO = Signatures(
    "to",
    "(torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)",
    "(torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
)
"""The arguments of ``Tensor.to`` and ``Module.to``, as torch's parser reads them."""


class ToArguments(NamedTuple):
    """What a call of ``to`` asks: ``copy_given`` tells ``Module.to``, which refuses any
    ``copy`` argument, whether one was passed (``False`` included)."""

    device: Any
    dtype: DType | None
    non_blocking: bool
    copy: bool
    memory_format: memory_format | None
    copy_given: bool


def to_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> ToArguments:
    """``to``'s arguments read by torch's signatures (a tensor argument gives its device and
    dtype), the device checked (:func:`~ownership.ops.devices.check_device`)."""
    index, a = TO.parse(args, kwargs)
    if index == 2:
        device, dtype = a["tensor"].device, a["tensor"].dtype
    else:
        device, dtype = a.get("device"), a["dtype"]
    checks.check_device(device, "to")
    copy_given = "copy" in kwargs or len(args) > (3 if index == 0 else 2)
    return ToArguments(device, dtype, a["non_blocking"], a["copy"], a["memory_format"], copy_given)


def to(t: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert to a dtype and/or lay out in a memory format (``ToCopyBackward0``); ``t`` itself
    when nothing changes (torch's ``to_will_alias``: the same dtype, no ``copy``, and a
    ``memory_format`` that is ``preserve_format`` or the one ``t``'s strides suggest)."""
    dt: DType | None
    if len(args) == 1 and not kwargs and isinstance(args[0], DType):  # ``x.to(dtype)``
        dt, copy, fmt = args[0], False, None
    else:
        _, dt, _, copy, fmt, _ = to_arguments(args, kwargs)
    src = t.dtype
    if dt is None:
        dt = src
    data = t._data
    if (
        dt is src
        and not copy
        and (fmt is None or fmt is preserve_format or suggested(data.shape, t._stride()) is fmt)
    ):
        return t

    def kernel() -> Tensor:
        if fmt is None or fmt is preserve_format:  # laid out as clone lays out a copy
            arr = preserved_copy(t, dt)
        else:  # torch's empty(memory_format=fmt), then copy_
            arr = layout.dense_with_strides(data.shape, format_strides(fmt, data.shape), dt.np)
            arr[...] = data.astype(dt.np, copy=False)
        return wrap(arr, dt)

    def bw(node: OpNode, s: Saved, g: Grads) -> Grads:
        return (g[0].to(src),)

    recorded = needs_grad(t) and dt.is_floating_point
    return copied(t, run_op((t,), recorded, kernel, "ToCopyBackward0", bw))
