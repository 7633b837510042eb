"""Gradients set by hand (``p.grad = ...``), for either engine: computed from ``p``'s own gradient
(clipped, scaled) or not.

A watcher remembers each gradient a backward left in ``p.grad`` (:meth:`HandGrads.remember`),
shows every op's result to :meth:`HandGrads.derive` (a result of the same shape as a gradient it
was computed from stands for that gradient) and calls :meth:`HandGrads.grad_set` after each
``p.grad = g``: a ``g`` derived from ``p``'s own gradient still holds the backwards that one held
(:meth:`~ownership.doctor.ledger.Ledger.on_grad_set`), so clipping by hand without zeroing is
still a stale gradient. Tensors are read by duck typing, the engine's tensor class is given.
"""

from __future__ import annotations

import weakref
from typing import Any

from ownership.doctor.ledger import Ledger

__all__ = ["HandGrads"]


class HandGrads:
    """The gradients of one run and the tensors computed from one, by ``id`` (weakly held)."""

    def __init__(self, ledger: Ledger, tensor_type: type) -> None:
        self.ledger = ledger
        self.tensor_type: Any = tensor_type
        #: id -> (tensor, parameter state): gradients, and tensors computed from one gradient
        self.grad_of: dict[int, tuple[weakref.ref[Any], Any]] = {}
        self.limit = 256

    def remember(self, grad: Any, state: Any) -> None:
        """``grad`` is (or was computed from) the gradient of the parameter of ``state``."""
        if not isinstance(grad, self.tensor_type):
            return
        if len(self.grad_of) > self.limit:
            self.grad_of = {k: v for k, v in self.grad_of.items() if v[0]() is not None}
            self.limit = 2 * len(self.grad_of) + 256
        self.grad_of[id(grad)] = (weakref.ref(grad), state)

    def source(self, t: Any) -> Any:
        """The parameter state whose gradient ``t`` is or was computed from, or None."""
        entry = self.grad_of.get(id(t))
        return entry[1] if entry is not None and entry[0]() is t else None

    def derive(self, name: str, args: Any, result: Any) -> None:
        """Op ``name`` returned ``result`` from ``args``: a new tensor that needs no gradient, of
        the same shape as a gradient among ``args`` (outside ``step()``; an in-place op, a
        ``*_like`` or a ``new_*`` factory makes none) stands for that gradient."""
        if not self.grad_of or self.ledger.step_depth:
            return
        if name.endswith(("_", "_like")) or name.startswith("new_"):
            return
        if not isinstance(result, self.tensor_type) or result.requires_grad:
            return
        if any(a is result for a in args):  # an in-place op or a getter: not a new tensor
            return
        for a in args:
            if isinstance(a, self.tensor_type) and a.shape == result.shape:
                state = self.source(a)
                if state is not None:
                    self.remember(result, state)
                    return

    def grad_set(self, p: Any, grad: Any) -> None:
        """``p.grad = grad`` ran: computed from ``p``'s own gradient (clipping) or not."""
        if not isinstance(p, self.tensor_type) or id(p) not in self.ledger.params:
            return
        state = self.ledger.track(p)[0]
        self.ledger.on_grad_set(p, grad, derived=self.source(grad) is state)
        self.remember(grad, state)
