"""The fused ops of the layers: ``addmm`` and ``linear``, ``batch_norm``; forward and backward.

torch's layers do not compose their outputs from elementary ops: ``Linear`` calls ``addmm``
(``AddmmBackward0``) and ``BatchNorm1d`` one kernel (``NativeBatchNormBackward0``), and what
these nodes save decides which later in-place write breaks backward. So the same here:

>>> import ownership
>>> x = ownership.ones(4, 3, requires_grad=True)
>>> w = ownership.ones(2, 3, requires_grad=True)
>>> y = linear(x, w, ownership.zeros(2, requires_grad=True))
>>> y.grad_fn.name(), [(f.name(), nr) for f, nr in y.grad_fn.next_functions]
('AddmmBackward0', [('torch::autograd::AccumulateGrad', 0), ('torch::autograd::AccumulateGrad', 0), ('TBackward0', 0)])
>>> batch_norm(x, None, None, training=True).grad_fn.name()
'NativeBatchNormBackward0'
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ownership.core import grad_mode
from ownership.core.autograd.node import Grads, OpNode, Saved
from ownership.core.op_registry import quiet
from ownership.core.tensor import Tensor
from ownership.ops.argument_values import read_in_python, tensor_arg
from ownership.ops.common import inputs_needed, needs_grad, run_op, shape_of, sum_to, wrap
from ownership.ops.linalg import mat1_grad, mat2_grad
from ownership.ops.view_shapes import expand_strides


# ---------------------------------------------------------------- addmm and linear
def _scaled(t: Tensor, factor: Any) -> Tensor:
    """torch's ``maybe_multiply``: ``t`` itself when the factor is 1."""
    return t if factor == 1 else t * factor


@quiet
def _bw_addmm(node: OpNode, s: Saved, g: Grads) -> Grads:
    """d(beta * self + alpha * mat1 @ mat2) = beta * d self (summed back to its shape)
    + alpha * (d mat1 @ mat2 + mat1 @ d mat2); the products with mm's layout rule (quiet, as
    the ops it may skip are)."""
    gr = g[0]
    alpha, beta = s["alpha"], s["beta"]
    self_needed, mat1_needed, mat2_needed = node.needed
    d_self = d_mat1 = d_mat2 = None
    if self_needed:
        d_self = sum_to(_scaled(gr, beta), node.input_shapes[0])
    if mat1_needed:
        m1 = mat1_grad(gr, s["mat2"], s["mat1_sym_sizes"], s["mat1_sym_strides"])
        d_mat1 = _scaled(m1, alpha)
    if mat2_needed:
        m2 = mat2_grad(gr, s["mat1"], s["mat2_sym_sizes"], s["mat2_sym_strides"])
        d_mat2 = _scaled(m2, alpha)
    return (d_self, d_mat1, d_mat2)


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * bias + alpha * (mat1 @ mat2)`` with ``bias`` broadcast over the rows
    (``AddmmBackward0``); torch's ``addmm(input, mat1, mat2, *, beta=1, alpha=1)``.

    Edges go to ``bias``, ``mat1``, ``mat2`` in that order; ``mat1`` is saved only when
    ``mat2`` needs a gradient (has an edge) and ``mat2`` only when ``mat1`` does, as in torch.
    All three share one dtype (torch's checks, in its order: no promotion in a fused kernel).
    """

    def kernel() -> Tensor:
        dt = mat2.dtype
        if bias.dtype is not dt or mat1.dtype is not dt:
            for name, m in (("self", bias), ("mat1", mat1)):
                if m.dtype is not dt:
                    raise RuntimeError(
                        f"{name} and mat2 must have the same dtype, but got {m.dtype.short} "
                        f"and {dt.short}"
                    )
        a1, a2, added = mat1._data, mat2._data, bias._data
        if a1.ndim != 2 or a2.ndim != 2:
            name, arr = ("mat1", a1) if a1.ndim != 2 else ("mat2", a2)
            raise RuntimeError(f"{name} must be a matrix, got {arr.ndim}-D tensor")
        (n, k), (k2, p) = a1.shape, a2.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{p})")
        # the bias is expanded to the product's shape (torch's messages); a row of p: no check
        if added.shape != (p,):
            expand_strides(added.shape, (0,) * added.ndim, (n, p), bias.dtype.error_name)
        prod = a1 @ a2
        if alpha != 1:
            prod = prod * alpha
        if beta == 0:  # torch ignores the input then: its nan and inf do not propagate
            return wrap(prod, dt)
        if beta != 1:
            added = added * beta
        if added.dtype == prod.dtype:  # the bias expands to the product's shape (checked)
            prod += added  # the product is a new array: no second one for the sum
        else:
            prod = prod + added
        return wrap(prod, dt)

    def save(node: OpNode) -> None:
        node.input_shapes = (
            tuple(bias._data.shape),
            tuple(mat1._data.shape),
            tuple(mat2._data.shape),
        )
        _, mat1_needed, mat2_needed = inputs_needed(node)
        node.save("mat1", mat1 if mat2_needed else None)
        node.save("mat2", mat2 if mat1_needed else None)

    recorded = needs_grad(bias, mat1, mat2)
    ctx = None
    if recorded:
        ctx = {
            "alpha": alpha,
            "beta": beta,
            "mat1_sym_sizes": tuple(mat1._data.shape),
            "mat1_sym_strides": mat1._stride(),
            "mat2_sym_sizes": tuple(mat2._data.shape),
            "mat2_sym_strides": mat2._stride(),
        }
    return run_op((bias, mat1, mat2), recorded, kernel, "AddmmBackward0", _bw_addmm, ctx, save)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` by torch's route, so names, saved tensors and versions match.

    A 2-D input with a bias is one ``addmm``; another contiguous input with a bias is flattened
    to 2-D (``reshape``), multiplied by ``addmm`` and viewed back; otherwise the result is
    ``matmul(input, weight.t())`` and the bias is added to it in place (``AddBackward0``, the
    result at version 1 or more).
    """
    wt = weight.t()
    if bias is not None:
        if input._data.ndim == 2:
            return addmm(bias, input, wt)
        if input._is_contiguous() and bias._data.ndim == 1:
            sizes = tuple(input._data.shape)
            flat = input.reshape(math.prod(sizes[:-1]), sizes[-1] if sizes else 1)
            out = addmm(bias, flat, wt)
            return out.view(*sizes[:-1], out._data.shape[1])
    out = input.matmul(wt)
    return out if bias is None else out.add_(bias)


# ---------------------------------------------------------------- batch norm
def _bn_backward(node: OpNode, s: Saved, g: Grads) -> Grads:
    """The gradients of ``(x - mean) * invstd * weight + bias`` per channel (dim 1); in training
    ``mean`` and ``invstd`` are the batch's and depend on ``x`` too."""
    gr = g[0]
    x, weight = s["input"], s["weight"]
    # torch's backward kernel checks the dtypes again (a module made double() since the forward)
    _check_batch_norm_dtypes(x, (weight, s["running_mean"], s["running_var"]))
    input_shape = node.input_shapes[0]
    assert input_shape is not None  # batch norm records its input's shape
    dims, shape, count = _channel_geometry(input_shape)
    input_needed, weight_needed, bias_needed = node.needed
    if s["training"]:
        if grad_mode.is_grad_enabled():  # create_graph: let mean and invstd depend on x
            mean = x.mean(dims, keepdim=True)
            invstd = 1 / (((x - mean) ** 2).mean(dims, keepdim=True) + s["eps"]).sqrt()
        else:
            mean, invstd = s["result1"].view(shape), s["result2"].view(shape)
    else:
        mean = s["running_mean"].view(shape)
        invstd = 1 / (s["running_var"].view(shape) + s["eps"]).sqrt()
    xhat = (x - mean) * invstd
    gb = gr.sum(dims)
    gw = (gr * xhat).sum(dims)
    scale = invstd if weight is None else invstd * weight.view(shape)
    if not input_needed:
        gi = None
    elif s["training"]:
        gi = (gr - gb.view(shape) / count - xhat * (gw.view(shape) / count)) * scale
    else:
        gi = gr * scale
    return (gi, gw if weight_needed else None, gb if bias_needed else None)


def _channel_geometry(size: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """For an input of ``size`` normalised per channel (dim 1): the dims reduced over, the shape
    a channel's statistic is viewed as to broadcast, and how many values each channel has."""
    c = size[1] if len(size) > 1 else 1
    return (0, *range(2, len(size))), (1, c) + (1,) * (len(size) - 2), math.prod(size) // c


def _check_batch_norm_dtypes(input: Tensor, params: tuple[Tensor | None, ...]) -> None:
    """torch's CPU kernel: a floating input, and parameters (weight, bias, running statistics)
    of its dtype; the first parameter given decides which of torch's messages a mismatch gets."""
    dt = input.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{dt.short}'")
    given = [p for p in params if p is not None]
    if given and given[0].dtype is not dt:  # "mixed": allowed for a reduced-precision input only
        if any(p.dtype.name != "float32" for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for p in given:
        if p.dtype is not dt:
            raise RuntimeError(f"expected scalar type {dt.short} but found {p.dtype.short}")


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (dim 1) over the other dims (``NativeBatchNormBackward0``).

    In training the batch's mean and biased variance are used, and the running statistics, when
    given, move towards the batch's (unbiased variance) *without* a version bump: torch's kernel
    writes them directly. In evaluation the running statistics are used and must be given. The node's edges go to ``input``, ``weight``, ``bias``; it saves
    ``input``, ``weight``, ``running_mean``, ``running_var`` and the batch's mean and inverse
    standard deviation (``result1``, ``result2``; empty in evaluation mode). In training the batch
    needs more than one value per channel (torch's ``ValueError``, as ``F.batch_norm``).
    """
    if training:
        read_in_python(input, "size")  # F.batch_norm's first read
        size = input._data.shape
        if math.prod(size) // (size[1] if len(size) > 1 else 1) == 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"torch.Size({list(size)})"
            )
    tensor_arg("batch_norm", input)  # torch.batch_norm's parser, in its order
    optional = (("weight", weight), ("bias", bias), ("running_mean", running_mean))
    for position, (name, t) in enumerate((*optional, ("running_var", running_var)), 2):
        if t is not None:
            tensor_arg("batch_norm", t, name, position)
    x = input._data
    c = x.shape[1] if x.ndim > 1 else 1
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):  # torch's order, one tensor after the other, before the kernel writes the statistics
        if t is not None and t._numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._numel()}")
        if t is None and not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if grad_mode.is_grad_enabled() and t is not None and t.requires_grad:  # torch's autograd
            raise RuntimeError(  # kernel refuses a statistic that requires grad (a Parameter)
                f"The function 'native_batch_norm' is not differentiable with respect to "
                f"argument '{name}'. This input cannot have requires_grad True."
            )
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    _check_batch_norm_dtypes(input, (weight, bias, running_mean, running_var))  # the kernel's
    dims, shape, count = _channel_geometry(x.shape)
    stats: list[Any] = []  # the mean and inverse standard deviation the kernel finds

    def kernel() -> Tensor:
        acc = x.astype(np.float64)
        if training:
            mean = acc.mean(axis=dims)
            var = acc.var(axis=dims)
            invstd = 1 / np.sqrt(var + eps)
            if running_mean is not None and running_var is not None:
                unbiased = var * count / max(count - 1, 1)
                for buf, stat in ((running_mean, mean), (running_var, unbiased)):
                    new = (1 - momentum) * buf._data.astype(np.float64) + momentum * stat
                    np.copyto(buf._data, new, casting="unsafe")  # the kernel's write: no bump
            stats.extend((mean, invstd))
        else:
            assert running_mean is not None and running_var is not None
            mean = running_mean._data.astype(np.float64)
            invstd = 1 / np.sqrt(running_var._data.astype(np.float64) + eps)
            stats.extend((np.empty(0), np.empty(0)))  # evaluation: none saved
        scale = invstd if weight is None else invstd * weight._data
        shift = -mean * scale + (0 if bias is None else bias._data)
        return wrap(acc * scale.reshape(shape) + shift.reshape(shape), input.dtype)

    def save(node: OpNode) -> None:
        node.input_shapes = (x.shape, shape_of(weight), shape_of(bias))
        inputs_needed(node)
        node.save("input", input)  # in the order torch's node checks their versions
        node.save("running_mean", running_mean)
        node.save("running_var", running_var)
        node.save("weight", weight)

    def after(node: OpNode, out: Tensor) -> None:
        node.save("result1", wrap(stats[0], input.dtype))
        node.save("result2", wrap(stats[1], input.dtype))

    recorded = needs_grad(input, weight, bias)
    return run_op(
        (input, weight, bias),
        recorded,
        kernel,
        "NativeBatchNormBackward0",
        _bn_backward,
        {"eps": eps, "training": training} if recorded else None,
        save,
        after,
    )


__all__ = ["addmm", "batch_norm", "linear"]
