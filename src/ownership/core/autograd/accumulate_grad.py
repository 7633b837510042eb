"""What a leaf's ``AccumulateGrad`` does with a gradient, and a retained gradient's hook.

A leaf's ``.grad`` starts as ``None``; the first gradient is kept as it is when nobody else
holds it and it has the leaf's layout (torch steals it), else copied into the leaf's layout;
later ones are summed into ``.grad`` in place (out of place when building a graph). All of it
under a lock, as in torch: concurrent backward passes lose no update. A non-leaf that retains
its gradient gets a copy of it (:func:`retain`).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ownership.core import grad_mode, layout, observers
from ownership.core.autograd import grad_dtype
from ownership.core.autograd.unseen import spare_refs
from ownership.core.warn_once import warn_once

__all__ = ["LEAF_MOVED", "accumulate", "accumulated", "dense", "retain"]

LEAF_MOVED = "leaf variable has been moved into the graph interior"
"""torch's error when a leaf that receives a gradient has a ``grad_fn`` by then (both backward
loops raise it before they accumulate)."""


def dense(t: Any) -> bool:
    """Non-overlapping and dense (torch's condition for reusing a gradient buffer in place)."""
    arr = t._data
    if arr.size == 0:
        return True
    flags = arr.flags
    return bool(flags.c_contiguous or flags.f_contiguous or layout.dense_array(arr))


def obeys_layout_contract(grad: Any, var: Any) -> bool:
    """torch's gradient layout contract (``obeys_layout_contract``): for a dense leaf, the
    gradient has the leaf's stride in every dim whose size is not 1 (in a dim of size 1, any
    stride but 0); for any other leaf, the gradient is row-major contiguous."""
    if dense(var):
        own = var.stride()
        for i, (n, g) in enumerate(zip(grad._data.shape, grad.stride(), strict=True)):
            # a dim the leaf lacks (its ``.data`` of fewer dims): torch reads the stride left in
            # that unused slot of the leaf's sizes and strides, 1 in the first (a new tensor's
            # first stride, which a 0-d one keeps), 0 in the others
            if n != 1:
                if g != (own[i] if i < len(own) else 1 if i == 0 else 0):
                    return False
            elif g == 0:
                return False
        return True
    return bool(grad.is_contiguous())


def _like_leaf(var: Any, np_dtype: Any) -> Any:
    """A new array of ``var``'s shape for its gradient (torch's ``clone_obey_contract``): with
    exactly the leaf's strides when it is dense, size-1 dims included, else row-major."""
    arr = var._data
    if dense(var):
        return layout.dense_with_strides(arr.shape, var.stride(), np_dtype)
    return np.empty(arr.shape, np_dtype)


def _checked(result: Any, var: Any) -> Any:
    """``result``, a gradient summed into a leaf's, after torch's warning (once per program)
    where it breaks the layout contract (:func:`obeys_layout_contract`)."""
    if not obeys_layout_contract(result, var):
        warn_once(
            "grad and param do not obey the gradient layout contract. This is not an error, "
            f"but may impair performance.\ngrad.sizes() = {list(result._data.shape)}, "
            f"strides() = {list(result.stride())}\nparam.sizes() = {list(var._data.shape)}, "
            f"strides() = {list(var.stride())}",
            stacklevel=5,
            site="grad and param do not obey the gradient layout contract",
        )
    return result


def retain(t: Any, grad: Any) -> None:
    """torch's retain_grad hook: the first gradient is cloned row-major (``clone`` with
    ``contiguous_format``, whatever its layout), later ones added out of place."""
    if grad.dtype is not t.dtype:
        grad = grad.to(t.dtype)
    old = t._grad
    if old is None:
        new = grad.clone()
        if not layout.row_major(new._data):  # a fresh copy: relaid before anyone sees it
            new._data = layout.as_row_major(new._data)
            new._lazy_storage = None  # made again from the new array when asked for
        t._grad = new
    else:
        t._grad = old + grad
    if not grad_mode.is_grad_enabled():
        t._grad = t._grad.detach()


def accumulated(var: Any) -> None:
    """Tell the accumulation observers (``observers.ACCUMULATIONS``) that a gradient reached the
    leaf ``var``: what both backward loops do after :func:`accumulate` was given a gradient,
    while some observer listens (the leaf's ``requires_grad`` read now, after the write)."""
    if var.requires_grad:
        for observe in observers.ACCUMULATIONS:
            observe(var)


_ACCUMULATE_LOCK = threading.Lock()
_lock, _unlock = _ACCUMULATE_LOCK.acquire, _ACCUMULATE_LOCK.release  # bound once


def accumulate(var: Any, grad: Any, create_graph: bool, held: int) -> None:
    """AccumulateGrad, under a lock as in torch (concurrent backward passes lose no update).

    The first gradient is stolen when nobody else holds it (``held``: the references the
    engine holds, its caller's variables included) and it has the leaf's layout, else copied
    into a new tensor with the leaf's layout (torch's ``clone_obey_contract``: an empty tensor
    then ``copy_``, so that copy is at version 1, and in ``create_graph`` mode its ``grad_fn`` is
    ``CopyBackwards``); later gradients are added in place into ``.grad`` (out of place, a new
    tensor, in ``create_graph`` mode)."""
    if grad is None or not (var._requires_grad or var.requires_grad):  # a leaf's slot first
        return
    # a gradient of the leaf's dtype needs no cast here: where a leaf's grad_dtype differs,
    # the backward loop has cast it already (``grad_dtype.LEAVES``)
    if grad.dtype is not var.dtype:
        grad = grad_dtype.cast(var, grad)  # a new tensor, nobody else holds it; or as it came
    _lock()  # (a ``with`` block's enter and exit calls cost more)
    try:
        old = var._grad
        if old is None:
            garr = grad._data
            # the common case, checked first: an unseen, non-empty gradient of the leaf's strides
            # (numpy's byte strides are 0 exactly where the element strides are), or of strides
            # that differ only in dims of size 1
            strides = garr.strides
            if (
                not create_graph
                and (strides == var._data.strides or obeys_layout_contract(grad, var))
                and garr.size
                and 0 not in strides
                and spare_refs(grad) < held  # (this function's ``grad`` is one of the held)
                and (garr.flags.c_contiguous or garr.flags.f_contiguous)  # C or F
            ):
                var._grad = grad._detached_unseen()
                return
            dense_var = dense(var) or var._data.size == 0
            if (
                not create_graph
                and spare_refs(grad) < held
                and dense(grad)
                and 0 not in grad.stride()
                and obeys_layout_contract(grad, var)  # (of other sizes too, as torch's)
            ):
                var._grad = grad._detached_unseen()
                return
            # torch's ``clone_obey_contract``: a new tensor of the leaf's sizes and strides, the
            # gradient copied in, so at version 1 (a gradient of other strides, as ``t()``'s
            # of a transposed copy; a leaf whose ``.data`` has other sizes than the recorded
            # ones its gradient has: broadcast, or copy_'s error), or a contiguous clone
            arr = _like_leaf(var, garr.dtype) if dense_var else np.empty(garr.shape, garr.dtype)
            new = grad._wrap(arr, grad.dtype)
            new.copy_(grad)
            var._grad = new
        elif create_graph or grad_mode.is_grad_enabled():
            var._grad = _checked(old + grad, var)
        else:
            _checked(old.add_(grad), var)
    finally:
        _unlock()
