"""Matrix products with torch's rules for 1-D and 2-D operands, and their backward.

``matmul`` of two matrices is ``MmBackward0`` (saves each side only for the other's gradient),
of two vectors ``DotBackward0``, matrix @ vector ``MvBackward0``; batched inputs broadcast.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.op_registry import quiet
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import tensor_arg
from ownership.ops.common import (
    needs_grad,
    run_op,
    save_product,
    wrap,
    written_by_kernel,
    written_fresh,
)

_C_NAMES = {
    "float32": "float",
    "float64": "double",
    "int64": "long int",
    "int32": "int",
    "bool": "bool",
}


def _check_dtypes(a: Tensor, b: Tensor, what: str) -> None:
    """torch's dtype-mismatch messages of mm, mv, dot and bmm."""
    if a.dtype is b.dtype:
        return
    if what == "mm":
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_C_NAMES[a.dtype.name]} != {_C_NAMES[b.dtype.name]}"
        )
    if what == "mv":
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{b.dtype.short}, {a.dtype.short}, and {b.dtype.short}"
        )
    if what == "bmm":
        raise RuntimeError(f"expected scalar type {a.dtype.short} but found {b.dtype.short}")
    raise RuntimeError(
        f"dot : expected both vectors to have same dtype, but found {a.dtype.short} and "
        f"{b.dtype.short}"
    )


@quiet
def _bw_mm(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self @ mat2) = d self @ mat2 + self @ d mat2 (quiet: see :func:`mat1_grad`)."""
    gr = g[0]
    self_needed, mat2_needed = node.needed
    d_self = (
        mat1_grad(gr, s["mat2"], s["self_sym_sizes"], s["self_sym_strides"])
        if self_needed
        else None
    )
    d_mat2 = (
        mat2_grad(gr, s["self"], s["mat2_sym_sizes"], s["mat2_sym_strides"])
        if mat2_needed
        else None
    )
    return (d_self, d_mat2)


def column_major(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's test in mm's backward: a matrix laid out column by column (its transpose is
    row-major); its gradient is then computed transposed, so it gets that layout too."""
    return strides[0] == 1 and strides[1] == sizes[0]


def mat1_grad(gr: Tensor, m: Tensor, sizes: Sequence[int], strides: Sequence[int]) -> Tensor:
    """torch's ``mm_mat1_backward``: ``gr.mm(m.t())``, as ``m.mm(gr.t()).t()`` when the first
    operand (of ``sizes`` and ``strides``) was column-major. The caller runs it quiet
    (:func:`ownership.core.op_registry.quiet`), as ``mm`` would be: one switch per backward."""
    if column_major(sizes, strides):
        return m.mm(gr.t()).t()
    return gr.mm(m.t())


def mat2_grad(gr: Tensor, a: Tensor, sizes: Sequence[int], strides: Sequence[int]) -> Tensor:
    """torch's ``mm_mat2_backward``: ``a.t().mm(gr)``, as ``gr.t().mm(a).t()`` when the second
    operand (of ``sizes`` and ``strides``) was column-major; as :func:`mat1_grad`."""
    if column_major(sizes, strides):
        return gr.t().mm(a).t()
    return a.t().mm(gr)


def mm(a: Tensor, b: Tensor) -> Tensor:
    """2-D matrix product (``MmBackward0``): each operand saved for the other's gradient
    (:func:`~ownership.ops.common.save_product`) before the kernel's checks, so of operands of
    any rank."""
    ad, bd = a._data, b._data  # read once: each read of a shape builds a new tuple

    def kernel() -> Tensor:
        if ad.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if bd.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        a_shape, b_shape = ad.shape, bd.shape
        if a_shape[1] != b_shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({a_shape[0]}x{a_shape[1]} and "
                f"{b_shape[0]}x{b_shape[1]})"
            )
        dt = a.dtype
        if dt is not b.dtype:
            _check_dtypes(a, b, "mm")
        _refuse_bool("addmm_impl_cpu_", dt, a_shape[0], b_shape[1], a_shape[1])
        return wrap(ad @ bd, dt)

    recorded = needs_grad(a, b)
    return run_op(
        (a, b),
        recorded,
        kernel,
        "MmBackward0",
        _bw_mm,
        _mm_context(a, b, ad, bd) if recorded else None,
        lambda node: save_product(node, "self", a, "mat2", b, other_first=True),
    )


def _refuse_bool(kernel: str, dt: dtypes.dtype, rows: int, cols: int, inner: int) -> None:
    """torch's product kernels have no bool form, but fill an empty result, or the zeros of a
    product over an empty inner dimension, before they dispatch on the dtype: only a product
    with something to sum is refused."""
    if dt is dtypes.bool_ and rows and cols and inner:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _mm_context(a: Tensor, b: Tensor, ad: NDArray[Any], bd: NDArray[Any]) -> Saved:
    """What ``MmBackward0`` of ``a @ b`` keeps of its operands' geometry (over the arrays ``ad``
    and ``bd``; of operands of any rank, since it is made before the kernel's checks)."""
    return {
        "self_sym_sizes": ad.shape,
        "self_sym_strides": a._stride(),
        "mat2_sym_sizes": bd.shape,
        "mat2_sym_strides": b._stride(),
    }


def dot(a: Tensor, b: Tensor) -> Tensor:
    """1-D inner product (``DotBackward0``): each operand saved for the other's gradient
    (:func:`~ownership.ops.common.save_product`) before the kernel's checks."""
    tensor_arg("dot", b, "tensor")

    def kernel() -> Tensor:
        if a._data.ndim != 1 or b._data.ndim != 1:
            raise RuntimeError(
                f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors"
            )
        _check_dtypes(a, b, "dot")
        n, m = a._data.shape[0], b._data.shape[0]
        if n != m:  # torch's dot_check, before the kernel's dtype
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                f"number of elements, but got {n} and {m} elements respectively"
            )
        if a.dtype is dtypes.bool_:
            raise NotImplementedError("\"dot\" not implemented for 'Bool'")
        out = wrap(np.dot(a._data, b._data), a.dtype)
        return written_by_kernel(out, a, b)  # torch's kernel: ``at::empty({}).fill_(product)``

    return run_op(
        (a, b),
        needs_grad(a, b),
        kernel,
        "DotBackward0",
        _bw_dot,
        save=lambda node: save_product(node, "self", a, "tensor", b, other_first=False),
    )


def _bw_dot(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self . tensor) = d self . tensor + self . d tensor."""
    self_needed, tensor_needed = node.needed
    return (
        g[0] * s["tensor"] if self_needed else None,
        g[0] * s["self"] if tensor_needed else None,
    )


def _bw_mv(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self @ vec) = d self @ vec + self @ d vec (``d self`` is the outer product)."""
    self_needed, vec_needed = node.needed
    return (
        g[0].unsqueeze(1).mm(s["vec"].unsqueeze(0)) if self_needed else None,
        s["self"].t().mv(g[0]) if vec_needed else None,
    )


def mv(a: Tensor, v: Tensor) -> Tensor:
    """Matrix @ vector (``MvBackward0``): each operand saved for the other's gradient
    (:func:`~ownership.ops.common.save_product`) before the kernel's checks."""

    def kernel() -> Tensor:
        if a._data.shape[1] != v._data.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({a._data.shape[0]}), mat ({a._data.shape[0]}x"
                f"{a._data.shape[1]}), vec ({v._data.shape[0]})"
            )
        _check_dtypes(a, v, "mv")
        _refuse_bool("addmv_impl_cpu", a.dtype, a._data.shape[0], 1, a._data.shape[1])
        return wrap(a._data @ v._data, a.dtype)

    return run_op(
        (a, v),
        needs_grad(a, v),
        kernel,
        "MvBackward0",
        _bw_mv,
        save=lambda node: save_product(node, "self", a, "vec", v, other_first=False),
    )


def _bw_bmm(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(self @ mat2) batched: d self @ mat2 + self @ d mat2 per batch entry."""
    gr = g[0]
    self_needed, mat2_needed = node.needed
    d_self = bmm(gr, s["mat2"].transpose(1, 2)) if self_needed else None
    d_mat2 = bmm(s["self"].transpose(1, 2), gr) if mat2_needed else None
    return (d_self, d_mat2)


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """Batched matrix product of two 3-D tensors (``BmmBackward0``): each operand saved for the
    other's gradient (:func:`~ownership.ops.common.save_product`) before the kernel's checks."""

    def kernel() -> Tensor:
        if a._data.ndim != 3 or b._data.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if a._data.shape[0] != b._data.shape[0] or a._data.shape[2] != b._data.shape[1]:
            sa, sb = list(a._data.shape), list(b._data.shape)
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] "
                f"but got: [{sb[0]}, {sb[1]}]."
            )
        (n, rows, inner), cols = a._data.shape, b._data.shape[2]
        if n * rows * cols and inner:
            _bmm_dtypes(a, b, rows * cols * inner)
        return wrap(np.matmul(a._data, b._data), b.dtype)

    return run_op(
        (a, b),
        needs_grad(a, b),
        kernel,
        "BmmBackward0",
        _bw_bmm,
        save=lambda node: save_product(node, "self", a, "mat2", b, other_first=True),
    )


def _bmm_dtypes(a: Tensor, b: Tensor, work: int) -> None:
    """torch's checks of the dtypes of ``bmm(a, b)`` with something to sum (an empty result is
    made with ``b``'s dtype and returned, an empty inner dimension zero-filled, before any). Its
    result has ``b``'s dtype; a product of ``work`` < 400 multiplications per batch entry
    dispatches on ``a``'s dtype ("bmm" has no bool form) and then reads the result and ``b`` as
    that type; a larger one calls ``addmm_impl_cpu_`` per batch entry, which checks the result
    (``b``'s dtype) against ``a`` when the result is floating, then ``a`` against ``b``, then
    refuses bool."""
    if work < 400:
        _refuse_bool("bmm", a.dtype, 1, 1, 1)
        if a.dtype is not b.dtype:
            raise RuntimeError(f"expected scalar type {a.dtype.short} but found {b.dtype.short}")
        return
    if a.dtype is not b.dtype:
        if b.dtype.is_floating_point:
            raise RuntimeError(f"expected scalar type {b.dtype.short} but found {a.dtype.short}")
        _check_dtypes(a, b, "mm")
    _refuse_bool("addmm_impl_cpu_", a.dtype, 1, 1, 1)


def _unsafe_view(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """torch's ``_unsafe_view``: the result of a composite op reshaped (``UnsafeViewBackward0``)."""
    src = tuple(t._data.shape)
    recorded = needs_grad(t)
    return run_op(
        (t,),
        recorded,
        lambda: Tensor._wrap(t._data.reshape(shape), t.dtype),
        "UnsafeViewBackward0",
        lambda node, s, g: (g[0].reshape(src),),
        {"self_sym_sizes": src} if recorded else None,
    )


def _squeeze0_inplace(t: Tensor) -> Tensor:
    """``squeeze_(0)`` of a fresh result, as torch's vector @ matrix ends (a version bump)."""
    shape = tuple(t._data.shape)
    t._data = t._data.reshape(shape[1:])
    written_fresh(t)
    if t._grad_fn is not None:
        node = OpNode(
            "SqueezeBackward4",
            ((t._grad_fn, t._output_nr),),
            lambda node, s, g: (g[0].reshape(shape),),
            {"dim": 0, "self_sym_sizes": shape},
        )
        t._set_grad_fn(node)
    return t


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """torch.matmul with torch's decomposition (so the same ``grad_fn`` names)."""
    tensor_arg("matmul", b, "other")
    ad, bd = a._data, b._data
    na, nb = ad.ndim, bd.ndim
    if na == 2 and nb == 2:  # the commonest case first
        return mm(a, b)
    if na == 0 or nb == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D"
        )
    if na == 1 and nb == 1:
        return dot(a, b)
    if na == 2 and nb == 1:
        return mv(a, b)
    if na == 1 and nb == 2:
        return _squeeze0_inplace(mm(a.unsqueeze(0), b))
    if _should_fold(a, b):
        if na >= 3:  # fold a's batch dims into rows
            lead = tuple(a._data.shape[:-1])
            folded = a.reshape(math.prod(lead), a._data.shape[-1])  # (never -1: 0 elements)
            out = folded.mm(b) if nb == 2 else folded.mv(b)
            return _unsafe_view(out, lead + ((b._data.shape[-1],) if nb == 2 else ()))
        bt = b.transpose(-2, -1)  # fold b's batch dims, transposed
        folded = bt.reshape(math.prod(bt._data.shape[:-1]), bt._data.shape[-1])
        lead = tuple(b._data.shape[:-2])
        if na == 1:
            return _unsafe_view(folded.mv(a), (*lead, b._data.shape[-1]))
        out = _unsafe_view(folded.mm(a.t()), (*lead, b._data.shape[-1], a._data.shape[0]))
        return out.transpose(-2, -1).contiguous()
    squeezed = _squeeze_lone_batch(a, b)
    if squeezed is not None:
        return matmul(*squeezed)
    return _batched(a, b)


def _squeeze_lone_batch(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor] | None:
    """torch's matmul before its bmm, for two 3-D operands whose batch sizes differ: an operand
    with batch 1 that requires grad is squeezed to a matrix (``SqueezeBackward1``) and matmul
    starts again (so it folds, like a matrix times a batch); ``a`` is tried first."""
    if a._data.ndim != 3 or b._data.ndim != 3 or a._data.shape[0] == b._data.shape[0]:
        return None
    if a._data.shape[0] == 1 and a.requires_grad:
        return a.squeeze(0), b
    if b._data.shape[0] == 1 and b.requires_grad:
        return a, b.squeeze(0)
    return None


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """torch's should_fold: matmul folds the larger operand into a matrix (mm or mv) only when
    that needs no copy, or when the smaller one requires grad; otherwise it is a bmm."""
    a_larger = a._data.ndim >= b._data.ndim
    t1_shape = a._data.shape if a_larger else (*b._data.shape[:-2], *b._data.shape[:-3:-1])
    t1_strides = a._stride() if a_larger else (*b._stride()[:-2], *b._stride()[:-3:-1])
    dim_t2 = b._data.ndim if a_larger else a._data.ndim
    if not (len(t1_shape) >= 3 and dim_t2 <= 2):
        return False
    if (b if a_larger else a).requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if int(np.prod(t1_shape)) == 0:
        return True
    return all(
        t1_strides[i] == t1_strides[i + 1] * t1_shape[i + 1] for i in range(len(t1_shape) - 2)
    )


def _batched(a: Tensor, b: Tensor) -> Tensor:
    """torch's last matmul case: both operands broadcast over the batch and multiplied by bmm
    (a 1-D operand as a row or a column)."""
    na, nb = a._data.ndim, b._data.ndim
    n = a._data.shape[-2] if na > 1 else 1
    k = a._data.shape[-1]
    k2 = b._data.shape[-2] if nb > 1 else b._data.shape[0]
    m = b._data.shape[-1] if nb > 1 else 1
    batch = layout.broadcast_shapes(
        a._data.shape[: max(na - 2, 0)], b._data.shape[: max(nb - 2, 0)]
    )
    size = int(np.prod(batch))
    ae = a.expand(*batch, n, k).reshape(size, n, k)
    if nb == 1:
        be = b.expand(*batch, k2).reshape(size, k2).unsqueeze(2)
    else:
        be = b.expand(*batch, k2, m).reshape(size, k2, m)
    shape = (*batch, *((n,) if na > 1 else ()), *((m,) if nb > 1 else ()))
    out = bmm(ae, be)
    return _unsafe_view(out.squeeze(-1) if nb == 1 else out, shape)
