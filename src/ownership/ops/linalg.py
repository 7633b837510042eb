"""Matrix products with torch's rules for 1-D and 2-D operands, and their backward.

``matmul`` of two matrices is ``MmBackward0`` (saves each side only for the other's gradient),
of two vectors ``DotBackward0``, matrix @ vector ``MvBackward0``; batched inputs broadcast.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership.autograd.node import OpNode, gradient_edge
from ownership.ops.common import needs_grad, record, result_dtype, sum_to, wrap
from ownership.tensor import OPS, Tensor


def _check_dtypes(a: Tensor, b: Tensor, what: str) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name.replace('float32', 'float')} "
            f"!= {b.dtype.name.replace('float32', 'float')}"
            if what == "mm"
            else f"{what}: expected both vectors to have same dtype, but found {a.dtype.short} and "
            f"{b.dtype.short}"
        )


def _bw_mm(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    gr = g[0]
    ga = gr.mm(s["mat2"].t()) if s["self_needed"] else None
    gb = s["self"].t().mm(gr) if s["mat2_needed"] else None
    return (ga, gb)


def mm(a: Tensor, b: Tensor) -> Tensor:
    """2-D matrix product (``MmBackward0``)."""
    if a._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a._data.shape[1] != b._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a._data.shape[0]}x{a._data.shape[1]} and "
            f"{b._data.shape[0]}x{b._data.shape[1]})"
        )
    _check_dtypes(a, b, "mm")
    out = wrap(a._data @ b._data, a.dtype)
    if needs_grad(a, b):
        ctx = {
            "self_needed": a._requires_grad,
            "mat2_needed": b._requires_grad,
            "self_sym_sizes": tuple(a._data.shape),
            "mat2_sym_sizes": tuple(b._data.shape),
        }
        node = record(out, "MmBackward0", (a, b), _bw_mm, ctx)
        if a._requires_grad:
            node.save("mat2", b)
        if b._requires_grad:
            node.save("self", a)
    return out


def dot(a: Tensor, b: Tensor) -> Tensor:
    """1-D inner product (``DotBackward0``)."""
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors"
        )
    if a._data.shape != b._data.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a._data.shape[0]}] and src [{b._data.shape[0]}] to have the same number of "
            f"elements, but got {a._data.shape[0]} and {b._data.shape[0]} elements respectively"
        )
    _check_dtypes(a, b, "dot")
    out = wrap(np.dot(a._data, b._data), a.dtype)
    if needs_grad(a, b):
        node = record(
            out,
            "DotBackward0",
            (a, b),
            lambda s, g: (
                g[0] * s["tensor"] if s["self_needed"] else None,
                g[0] * s["self"] if s["tensor_needed"] else None,
            ),
            {"self_needed": a._requires_grad, "tensor_needed": b._requires_grad},
        )
        if a._requires_grad:
            node.save("tensor", b)
        if b._requires_grad:
            node.save("self", a)
    return out


def mv(a: Tensor, v: Tensor) -> Tensor:
    """Matrix @ vector (``MvBackward0``)."""
    if a._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a._data.shape[0]}), mat ({a._data.shape[0]}x"
            f"{a._data.shape[1]}), vec ({v._data.shape[0]})"
        )
    out = wrap(a._data @ v._data, a.dtype)
    if needs_grad(a, v):
        node = record(
            out,
            "MvBackward0",
            (a, v),
            lambda s, g: (
                g[0].unsqueeze(1).mm(s["vec"].unsqueeze(0)) if s["self_needed"] else None,
                s["self"].t().mv(g[0]) if s["vec_needed"] else None,
            ),
            {"self_needed": a._requires_grad, "vec_needed": v._requires_grad},
        )
        if a._requires_grad:
            node.save("vec", v)
        if v._requires_grad:
            node.save("self", a)
    return out


def _bw_bmm(s: dict[str, Any], g: tuple[Any, ...]) -> Any:
    gr = g[0]
    a, b = s["self"], s["mat2"]
    ga = sum_to(matmul(gr, b.transpose(-2, -1)), s["self_shape"]) if s["self_needed"] else None
    gb = sum_to(matmul(a.transpose(-2, -1), gr), s["mat2_shape"]) if s["mat2_needed"] else None
    return (ga, gb)


def _squeeze0_(out: Tensor) -> Tensor:
    """torch's ``squeeze_(0)`` of matmul's fresh (1, n) result: in place, version bumped once."""
    sizes = tuple(out._data.shape)
    out._data = out._data.reshape(sizes[1:])
    out._storage.counter.value += 1
    if out._grad_fn is not None:
        node = OpNode(
            "SqueezeBackward4",
            (gradient_edge(out),),
            lambda s, g: (g[0].unsqueeze(0),),
            {"dim": 0, "self_sym_sizes": sizes},
        )
        out._set_history_inplace(node)
    return out


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """torch's should_fold for (>= 3-D) @ (1-D or 2-D): fold when ``b`` requires grad or the
    leading dims of ``a`` flatten without a copy."""
    if b._requires_grad or a._data.size == 0:
        return True
    sizes, strides = a._data.shape, a.stride()
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(a._data.ndim - 2))


def _folded(a: Tensor, b: Tensor) -> Tensor:
    """(>= 3-D) @ (1-D or 2-D) as one ``mm``/``mv`` over ``a`` folded to a matrix, then
    ``_unsafe_view`` (``UnsafeViewBackward0``, not a view) to the batch's shape."""
    sizes = tuple(a._data.shape)
    folded = a.reshape(int(np.prod(sizes[:-1])), sizes[-1])
    flat = mm(folded, b) if b._data.ndim == 2 else mv(folded, b)
    shape = sizes[:-1] + tuple(b._data.shape[1:])
    out = Tensor._wrap(flat._data.reshape(shape), flat.dtype)
    if needs_grad(flat):
        record(
            out,
            "UnsafeViewBackward0",
            (flat,),
            lambda s, g: (g[0].reshape(s["self_sym_sizes"]),),
            {"self_sym_sizes": tuple(flat._data.shape)},
        )
    return out


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """torch.matmul: dot, mv, mm, 1-D promotion, and broadcast batched products."""
    if not isinstance(b, Tensor):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type(b).__name__}")
    na, nb = a._data.ndim, b._data.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D"
        )
    if na == 1 and nb == 1:
        return dot(a, b)
    if na == 2 and nb == 1:
        return mv(a, b)
    if na == 1 and nb == 2:
        return _squeeze0_(mm(a.unsqueeze(0), b))
    if na == 2 and nb == 2:
        return mm(a, b)
    if na >= 3 and nb <= 2 and _should_fold(a, b):
        return _folded(a, b)
    if a.dtype is not b.dtype:
        _check_dtypes(a, b, "mm")
    aa = a.unsqueeze(0) if na == 1 else a
    bb = b.unsqueeze(-1) if nb == 1 else b
    out = wrap(np.matmul(aa._data, bb._data), result_dtype(a, b))
    if needs_grad(aa, bb):
        ctx = {
            "self_needed": aa._requires_grad,
            "mat2_needed": bb._requires_grad,
            "self_shape": tuple(aa._data.shape),
            "mat2_shape": tuple(bb._data.shape),
        }
        node = record(out, "BmmBackward0", (aa, bb), _bw_bmm, ctx)
        node.save("self", aa)
        node.save("mat2", bb)
    if na == 1:
        out = out.squeeze(-2)
    if nb == 1:
        out = out.squeeze(-1)
    return out


def register() -> None:
    """Install the matrix products in the Tensor registry."""
    OPS.update(matmul=matmul, mm=mm, dot=dot, mv=mv)
