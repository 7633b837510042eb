"""What a leaf's ``AccumulateGrad`` does with a gradient (:func:`accumulate`), and a retained
gradient's hook (:func:`retain`)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ownership.core import grad_mode, layout, observers
from ownership.core.autograd import grad_dtype
from ownership.core.autograd.unseen import spare_refs
from ownership.core.warn_once import warn_once

LEAF_MOVED = "leaf variable has been moved into the graph interior"
"""torch's error when a leaf that receives a gradient has a ``grad_fn`` by then."""


def dense(t: Any) -> bool:
    """Non-overlapping and dense (torch's condition for reusing a gradient buffer in place)."""
    arr = t._data
    if arr.size == 0:
        return True
    flags = arr.flags
    return bool(flags.c_contiguous or flags.f_contiguous or layout.dense_array(arr))


def obeys_layout_contract(grad: Any, var: Any) -> bool:
    """torch's gradient layout contract: for a dense leaf, the leaf's stride in every dim of size
    not 1 (else any stride but 0); for any other leaf, row-major contiguous."""
    if dense(var):
        own = var.stride()
        for i, (n, g) in enumerate(zip(grad._data.shape, grad.stride(), strict=True)):
            # a dim the leaf lacks (its ``.data`` of fewer dims): torch reads 1 in the first, else 0
            if n != 1:
                if g != (own[i] if i < len(own) else 1 if i == 0 else 0):
                    return False
            elif g == 0:
                return False
        return True
    return bool(grad.is_contiguous())


def _like_leaf(var: Any, np_dtype: Any) -> Any:
    """A new array for ``var``'s gradient: the leaf's exact strides when dense, else row-major."""
    arr = var._data
    if dense(var):
        return layout.dense_with_strides(arr.shape, var.stride(), np_dtype)
    return np.empty(arr.shape, np_dtype)


def _checked(result: Any, var: Any) -> Any:
    """``result``, after torch's warning (once) where it breaks the layout contract."""
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
    """torch's retain_grad hook: the first gradient cloned row-major, later ones added."""
    if grad.dtype is not t.dtype:
        grad = grad.to(t.dtype)
    old = t._grad
    if old is None:
        new = grad.clone()
        if not layout.row_major(new._data):  # a fresh copy: relaid before anyone sees it
            new._data = layout.as_row_major(new._data)
            new._lazy_storage = None
        t._grad = new
    else:
        t._grad = old + grad
    if not grad_mode.is_grad_enabled():
        t._grad = t._grad.detach()


def accumulated(var: Any) -> None:
    """Tell the accumulation observers (``observers.ACCUMULATIONS``) a gradient reached ``var``."""
    if var.requires_grad:
        for observe in observers.ACCUMULATIONS:
            observe(var)


_ACCUMULATE_LOCK = threading.Lock()


def accumulate(var: Any, grad: Any, create_graph: bool, held: int) -> None:
    """AccumulateGrad, under a lock as in torch (concurrent backward passes lose no update).

    The first gradient is stolen when nobody else holds it (``held``: the engine's references)
    and it has the leaf's layout, else copied into the leaf's layout (``copy_``: version 1); later
    ones are added in place (out of place in ``create_graph`` mode)."""
    if grad is None or not (var._requires_grad or var.requires_grad):  # a leaf's slot first
        return
    if grad.dtype is not var.dtype:
        grad = grad_dtype.cast(var, grad)
    with _ACCUMULATE_LOCK:
        old = var._grad
        if old is None:
            garr = grad._data
            # the common case first: an unseen, non-empty gradient of the leaf's strides
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
            # torch's ``clone_obey_contract``: the leaf's layout (or contiguous), ``copy_``'d in
            arr = _like_leaf(var, garr.dtype) if dense_var else np.empty(garr.shape, garr.dtype)
            new = grad._wrap(arr, grad.dtype)
            new.copy_(grad)
            var._grad = new
        elif create_graph or grad_mode.is_grad_enabled():
            var._grad = _checked(old + grad, var)
        else:
            _checked(old.add_(grad), var)
