"""The elementwise functions in place (``relu_``, ``exp_``, ``sin_``...) and ``clamp_``: each
torch's node, what it saves (the input before the write, or the result) and, for a function an
integer tensor cannot hold, torch's refusal.

Each writes through ``ownership.core.inplace_rules.run_inplace``, as the in-place arithmetic does
(``ownership.ops.inplace``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes
from ownership.core.autograd.node import BackwardFn, OpNode
from ownership.core.inplace_rules import run_inplace
from ownership.core.tensor import Tensor
from ownership.ops import checks
from ownership.ops import unary as un
from ownership.ops.common import inputs_needed, needs_grad, raw
from ownership.ops.inplace import snapshot
from ownership.ops.loop_order import Kernel


def _unary_inplace(
    np_fn: Any,
    name: str,
    backward: BackwardFn,
    saves: str,
    float_only: bool = False,
    refuse: Callable[[Tensor], None] | None = None,
) -> Callable[[Tensor], Tensor]:
    """An in-place elementwise function; ``float_only``: one of torch's float functions, computed
    as :func:`~ownership.ops.unary.floating` says (an integer or bool tensor cannot hold the
    result); ``refuse``: the op's own check of ``self``, made before the kernel's."""

    def op(a: Tensor) -> Tensor:
        def save(node: OpNode) -> None:
            node.save("self", snapshot(a))

        def compute() -> Any:
            return np_fn(un.floating(a)[0] if float_only else a._data)

        out_dtype = un.floating(a)[1] if float_only else a.dtype
        return run_inplace(
            a,
            (),
            needs_grad(a),
            compute,
            out_dtype,
            name,
            backward,
            None,
            save if saves == "self" else None,
            save_result=saves == "result",
            check_args=None if refuse is None else lambda: refuse(a),
            # torch's unary kernels are vectorized (a tensor whose elements overlap, from
            # as_strided_, is written as their loop goes)
            kernel=lambda: Kernel(np_fn, vectorized=a.dtype is not dtypes.bool_),
            reads=(a._data,),
        )

    return op


def clamp_(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamp in place (``ClampBackward1``; ``ClampBackward0`` for tensor bounds)."""

    def check_args() -> None:
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        dt = un.clamp_dtype(a, min, max)
        if not dtypes.can_cast(dt, a.dtype):
            # torch names the tensor's dtype as its C++ type (as g++ spells it) when a bound is a
            # number (its Scalar overload)
            number = any(v is not None and not isinstance(v, Tensor) for v in (min, max))
            to = checks.CPP_TYPES[a.dtype.name] if number else a.dtype.short
            raise RuntimeError(
                f"result type {dt.short} can't be cast to the desired output type {to}"
            )

    def compute() -> NDArray[Any]:
        out: NDArray[Any] = un.clamp_values(a._data, raw(min), raw(max))
        return out

    if un.tensor_bounds(min, max):  # ``ClampBackward0``, an edge to each bound
        bounds = [v for v in (min, max) if v is not None]

        def values(x: Any, *given: Any) -> NDArray[Any]:  # the bounds given, in order
            lo = given[0] if min is not None else None
            hi = given[-1] if max is not None else None
            out: NDArray[Any] = un.clamp_values(x, lo, hi)
            return out

        # torch's clamp kernel (both bounds), else maximum's or minimum's: a bool one has no
        # vector loop
        vectorized = (min is not None and max is not None) or a.dtype is not dtypes.bool_

        def save_tensors(node: OpNode) -> None:
            inputs_needed(node)
            node.save("self", snapshot(a))
            node.save("min", min)
            node.save("max", max)

        return run_inplace(
            a,
            (min, max),
            needs_grad(a, *bounds),
            compute,
            a.dtype,
            "ClampBackward0",
            un.bw_clamp_tensors,
            None,
            save_tensors,
            check_args=check_args,
            kernel=lambda: Kernel(values, vectorized=vectorized),
            reads=(a._data, *(raw(v) for v in bounds)),
        )

    def save(node: OpNode) -> None:
        node.save("self", snapshot(a))

    return run_inplace(
        a,
        (),
        needs_grad(a),
        compute,
        a.dtype,
        "ClampBackward1",
        un.bw_clamp,
        un.number_bounds(min, max),
        save,
        check_args=check_args,
    )


# The elementwise functions in place, each torch's node and what it saves.
relu_ = _unary_inplace(
    un.relu_values, "ReluBackward0", un.bw_relu, "result", refuse=un.refuse_bool_relu
)
sigmoid_ = _unary_inplace(
    un._sigmoid_np, "SigmoidBackward0", un.bw_sigmoid, "result", float_only=True
)
exp_ = _unary_inplace(np.exp, "ExpBackward0", un.bw_exp, "result", float_only=True)
tanh_ = _unary_inplace(np.tanh, "TanhBackward0", un.bw_tanh, "result", float_only=True)
sqrt_ = _unary_inplace(np.sqrt, "SqrtBackward0", un.bw_sqrt, "result", float_only=True)
neg_ = _unary_inplace(np.negative, "NegBackward0", un.bw_neg, "none", refuse=un.refuse_bool_neg)
log_ = _unary_inplace(np.log, "LogBackward0", un.bw_log, "self", float_only=True)
abs_ = _unary_inplace(un.abs_values, "AbsBackward0", un.bw_abs, "self")
sin_ = _unary_inplace(np.sin, "SinBackward0", un.bw_sin, "self", float_only=True)
cos_ = _unary_inplace(np.cos, "CosBackward0", un.bw_cos, "self", float_only=True)
