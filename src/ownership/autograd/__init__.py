"""Reverse-mode autograd: graph nodes, saved tensors, the engine, ``grad``, ``Function``, ``gradcheck``.

``ownership.autograd`` mirrors ``torch.autograd``: ``grad``, ``backward``, ``Function``,
``gradcheck``/``GradcheckError``, and the grad-mode switches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ownership.autograd import graph
from ownership.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from ownership.autograd.engine import run_backward
from ownership.autograd.function import Function, FunctionCtx
from ownership.autograd.grad import grad
from ownership.autograd.gradcheck import GradcheckError, gradcheck
from ownership.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ownership.inference_mode import inference_mode


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Sequence[Any] | None = None,
) -> None:
    """``torch.autograd.backward``: accumulate gradients of ``tensors`` into leaves' ``.grad``."""
    ts = list(tensors) if isinstance(tensors, list | tuple) else [tensors]
    gs = list(grad_tensors) if isinstance(grad_tensors, list | tuple) else [grad_tensors] * len(ts)
    for t, g in zip(ts, gs, strict=True):
        t.backward(
            g,
            retain_graph=True if len(ts) > 1 else retain_graph,
            create_graph=create_graph,
            inputs=inputs,
        )


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
