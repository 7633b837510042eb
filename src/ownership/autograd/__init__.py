"""Reverse-mode autograd, the public face: ``grad``, ``backward``, ``Function``, ``gradcheck``.

``ownership.autograd`` mirrors ``torch.autograd``: ``grad``, ``backward``, ``Function``,
``gradcheck``/``GradcheckError``, the grad-mode switches and the submodules ``graph`` and
``anomaly_mode``. The machinery (graph nodes, saved tensors, the backward loop, what a backward
reads of its arguments) is in ``ownership.core.autograd``; ``grad`` and ``backward``, torch's
functions over many roots, are here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ownership.autograd import graph
from ownership.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from ownership.core.autograd.engine import (
    check_roots,
    engine_flag,
    gradients_given,
    make_seeds,
    run_backward,
    tensors_given,
)
from ownership.core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ownership.core.inference_mode import inference_mode
from ownership.scope import module_getattr

# custom Function (ownership.autograd.function, its ctx from function_ctx) and gradcheck
# (ownership.autograd.gradcheck), put here by ownership.installation.install(): they build on
# this package's modules (Function writes through the in-place contract, which imports the
# graph), so importing them here would make a circle through this __init__
Function: type
FunctionCtx: type
GradcheckError: type
gradcheck: Callable[..., bool]

# (``grad`` imports what else it reads when called: ``dir()`` of this package
# is the engine's surface, recorded by tests/build/test_surface_snapshot.py)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Any, ...]:
    """Gradients of ``outputs`` w.r.t. ``inputs`` (a tuple, one entry per input).

    ``create_graph=True`` records the backward itself so the result can be differentiated again.
    """
    from ownership.core.autograd import grad_dtype
    from ownership.core.autograd.engine import is_tensor
    from ownership.core.op_registry import ops

    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = tensors_given(outputs)
    ins = tensors_given(inputs)
    for o in outs:
        if not is_tensor(o):
            raise AssertionError("Expected output to be a torch.Tensor")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    gos: Sequence[Any] = (
        gradients_given(grad_outputs, len(outs)) if grad_outputs is not None else [None] * len(outs)
    )
    seeds = make_seeds(outs, gos)
    keep = engine_flag(create_graph if retain_graph is None else retain_graph)
    create_graph = engine_flag(create_graph)
    allow_unused = engine_flag(allow_unused)
    check_roots(outs, seeds)
    res = run_backward(outs, seeds, keep, create_graph, ins, accumulate=False)
    out = []
    for i, (t, r) in enumerate(zip(ins, res, strict=True)):
        if r is None:
            if materialize_grads:  # torch's zeros_like, a leaf that requires grad to go on
                r = ops.zeros_like(t, requires_grad=create_graph)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
        elif t.is_leaf:  # as it reached the leaf's AccumulateGrad (a root's is not cast yet)
            acc = t._acc()
            r = grad_dtype.cast(grad_dtype.target(t) if acc is None else acc.grad_dtype, r)
        elif r.dtype is not t.dtype:
            r = r.to(t.dtype)
        out.append(r)  # as the engine left it (torch detaches nothing: a view stays a view)
    return tuple(out)


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Sequence[Any] | None = None,
) -> None:
    """``torch.autograd.backward``: accumulate gradients of ``tensors`` into leaves' ``.grad``."""
    outs = tensors_given(tensors)
    gos = (
        gradients_given(grad_tensors, len(outs)) if grad_tensors is not None else [None] * len(outs)
    )
    ins = None if inputs is None else tensors_given(inputs)
    if ins is not None and not ins:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    seeds = make_seeds(outs, gos)
    keep = engine_flag(create_graph if retain_graph is None else retain_graph)
    create_graph = engine_flag(create_graph)
    check_roots(outs, seeds)
    run_backward(outs, seeds, keep, create_graph, ins)  # one backward over all roots, as torch


__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "graph",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "run_backward",
    "set_detect_anomaly",
    "set_grad_enabled",
]

# a public name of torch.autograd that the engine lacks: the scope error (ownership.scope)
__getattr__ = module_getattr("torch.autograd", __name__)
