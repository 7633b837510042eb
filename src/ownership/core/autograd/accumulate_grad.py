"""What a leaf's ``AccumulateGrad`` does with a gradient (:func:`accumulate`), a retained
gradient's hook (:func:`retain`), and whether a gradient is unseen (:func:`memory_unseen`): torch
writes into a gradient buffer only when its ``use_count()`` is 1, asked here of Python's
reference counts."""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from ownership.core import grad_mode, layout, observers
from ownership.core.warn_once import warn_once

LEAF_MOVED = "leaf variable has been moved into the graph interior"
"""torch's error when a leaf that receives a gradient has a ``grad_fn`` by then."""


_BASELINE = 0
"""The references to an object only the caller holds (measured once, at import)."""


def spare_refs(obj: object) -> int:
    """How many references to ``obj`` exist besides one local variable of the caller."""
    return sys.getrefcount(obj) - _BASELINE


def _probe() -> int:
    probe = object()
    return spare_refs(probe)


_BASELINE = _probe()


def memory_unseen(t: Any, held: int) -> bool:
    """Whether at most ``held`` references refer to ``t`` and no view, ``detach()``, ``.data`` or
    numpy array shares its memory."""
    if spare_refs(t) > held:
        return False
    arr = t._data
    if not arr.flags.owndata and not _own_buffer(arr):  # a window on memory owned elsewhere
        return False
    known = 1  # t._data
    st = t._lazy_storage  # None: never made, so no view, detach() or .data alias shares it
    if st is not None:
        if spare_refs(st) != 1:  # t's own reference only: a view or an alias shares the Storage
            return False
        for name in ("_source", "_buffer"):
            if getattr(st, name) is not None:
                if not _window_of(getattr(st, name), arr):
                    return False
                known += 1
    return spare_refs(arr) == known


def _own_buffer(arr: Any) -> bool:
    """``arr`` is the only window on a buffer nobody else holds (``ops.common.lay_out_as``'s)."""
    owner = arr.base
    return type(owner) is np.ndarray and owner.flags.owndata and spare_refs(owner) == 1


def _window_of(other: Any, arr: Any) -> bool:
    """``other`` (held only by the storage) is ``arr`` or a view of it that nobody else views."""
    return other is arr or (other.base is arr and spare_refs(other) == 1)


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
        own = var._stride()
        for i, (n, g) in enumerate(zip(grad._data.shape, grad._stride(), strict=True)):
            # a dim the leaf lacks (its ``.data`` of fewer dims): torch reads 1 in the first, else 0
            if n != 1:
                if g != (own[i] if i < len(own) else 1 if i == 0 else 0):
                    return False
            elif g == 0:
                return False
        return True
    return bool(grad._is_contiguous())


def _like_leaf(var: Any, np_dtype: Any) -> Any:
    """A new array for ``var``'s gradient: the leaf's exact strides when dense, else row-major."""
    arr = var._data
    if dense(var):
        return layout.dense_with_strides(arr.shape, var._stride(), np_dtype)
    return np.empty(arr.shape, np_dtype)


def _checked(result: Any, var: Any) -> Any:
    """``result``, after torch's warning (once) where it breaks the layout contract."""
    if not obeys_layout_contract(result, var):
        warn_once(
            "grad and param do not obey the gradient layout contract. This is not an error, "
            f"but may impair performance.\ngrad.sizes() = {list(result._data.shape)}, "
            f"strides() = {list(result._stride())}\nparam.sizes() = {list(var._data.shape)}, "
            f"strides() = {list(var._stride())}",
            stacklevel=5,
            site="grad and param do not obey the gradient layout contract",
        )
    return result


def retain(t: Any, grad: Any) -> None:
    """torch's retain_grad hook: the first gradient cloned row-major, later ones added (in the
    dtype it arrives in, the node's: not the one ``.data`` gave the tensor since)."""
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
        t._grad = t._grad._detach()


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
    with _ACCUMULATE_LOCK:
        old = var._grad
        if old is None:
            garr = grad._data
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
                and 0 not in grad._stride()
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
