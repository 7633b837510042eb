"""``@once_differentiable``: a custom Function's backward that may run once, not be differentiated.

As torch's ``torch.autograd.function.once_differentiable``: the decorated backward runs under
``no_grad``; when grad mode is on (``create_graph=True``) and a gradient it got requires grad,
its results come back as outputs of an ``Error`` node (made over detached copies that
require grad), so that a later backward through them raises torch's error instead of computing a
wrong gradient. Like torch, it looks only at the gradients backward gets, not at the saved tensors.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ownership.core import grad_mode
from ownership.core.autograd.node import Node, gradient_edge
from ownership.core.storage import VersionCounter, is_engine_tensor

__all__ = ["ONCE_DIFFERENTIABLE", "Error", "once_differentiable"]

ONCE_DIFFERENTIABLE = (
    "trying to differentiate twice a function that was marked with @once_differentiable"
)


class Error(Node):
    """torch's ``Error`` node (made by ``DelayedError``): reaching it in a backward raises its
    message."""

    __slots__ = ("_message",)

    def __init__(self, message: str, next_functions: tuple[Any, ...]) -> None:
        super().__init__(next_functions, len(next_functions))
        self._message = message

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        raise RuntimeError(self._message)


def _delayed_error(message: str, values: tuple[Any, ...]) -> Any:
    """torch's ``DelayedError(message, n)(*values)``: each tensor (``None`` stays ``None``)
    becomes a new tensor over its memory with a version counter of its own, output of one
    ``Error`` node whose edges are the values'; one value comes back alone, more as a
    tuple."""
    node = Error(message, tuple(gradient_edge(v) for v in values))
    outs: list[Any] = []
    for nr, v in enumerate(values):
        if v is None:
            outs.append(None)
            continue
        out = v._alias(VersionCounter())
        out._grad_fn = node
        out._output_nr = nr
        out._requires_grad = True
        outs.append(out)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _fake_requires_grad(v: Any) -> Any:
    """``v.detach()`` made to require grad (None stays None), as torch's helper of that name."""
    if v is None:
        return None
    v = v.detach()
    v.requires_grad = True
    return v


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a custom Function's ``backward`` (under ``@staticmethod``) so that it runs
    without recording; differentiating its results again raises torch's RuntimeError
    "trying to differentiate twice a function that was marked with @once_differentiable"."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled():
            return outputs
        if not any(is_engine_tensor(a) and a.requires_grad for a in args):
            return outputs
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        fakes = tuple(_fake_requires_grad(v) for v in outputs)
        return _delayed_error(ONCE_DIFFERENTIABLE, fakes)

    return wrapper
