"""Reverse-mode autograd, the public face: ``grad``, ``backward``, ``Function``, ``gradcheck``.

``ownership.autograd`` mirrors ``torch.autograd``: ``grad``, ``backward``, ``Function``,
``gradcheck``/``GradcheckError``, the grad-mode switches and the submodules ``graph`` and
``anomaly_mode``. The machinery (graph nodes, saved tensors, the backward loop) is in
``ownership.core.autograd``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ownership.autograd import graph
from ownership.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from ownership.core.autograd.engine import run_backward
from ownership.core.autograd.grad import (
    check_roots,
    engine_flag,
    grad,
    gradients_given,
    make_seeds,
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
