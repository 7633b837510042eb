"""The least a Python engine that records a graph can do: a reference for ``bench/run.py``, not
part of ownership.

A micrograd-shaped autograd over numpy arrays with exactly the nodes torch records for the
bench's programs (``MmBackward0``, ``AddBackward0``, ``ReluBackward0``, ``LogSoftmaxBackward0``,
``NllLossBackward0`` for the MLP step; ``MulBackward0``, ``AddBackward0``, ``TanhBackward0``,
``SubBackward0``, ``SumBackward0`` for the chains of tiny ops; ``ViewBackward0`` for the chain of
views; and accumulation into ``.grad``), each backward beside its forward, and nothing else: no
version counter, no saved-tensor check, no hook, no grad mode, no dtype or shape rule, no error.
It computes only the gradients something needs (not the input's), and its array work is the
hand-written numpy step's, pass for pass (relu's backward is ``g * (r > 0)``, as there). Its time
over that numpy step is what recording and running a graph in Python costs at the least;
ownership's time over it is what torch's contracts cost.

The module is an engine as ``bench/cases.py`` takes one (:func:`tensor`, :func:`zeros`), so that
the chains run here as written for torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Backward = Callable[[Any], tuple[Any, ...]]


class Value:
    """An array, its gradient, and the node that made it (None for a leaf)."""

    __slots__ = ("backward_fn", "data", "grad", "parents", "wants_grad")

    def __init__(
        self,
        data: Any,
        parents: tuple[Value, ...] = (),
        backward_fn: Backward | None = None,
        wants_grad: bool = True,
    ) -> None:
        self.data = data
        self.grad: Any = None
        self.parents = parents
        self.backward_fn = backward_fn
        self.wants_grad = wants_grad

    def __matmul__(self, other: Value) -> Value:
        a, b = self.data, other.data
        input_grad = self.wants_grad

        def backward(g: Any) -> tuple[Any, ...]:
            return (g @ b.T if input_grad else None, a.T @ g)

        return Value(a @ b, (self, other), backward)

    def __add__(self, other: Value | float) -> Value:
        """A bias row added to every row (the MLP's), or a Python number."""
        if isinstance(other, Value):
            return Value(self.data + other.data, (self, other), lambda g: (g, g.sum(axis=0)))
        return Value(self.data + other, (self,), lambda g: (g,))

    def __sub__(self, number: float) -> Value:
        return Value(self.data - number, (self,), lambda g: (g,))

    def __mul__(self, number: float) -> Value:
        return Value(self.data * number, (self,), lambda g: (g * number,))

    def tanh(self) -> Value:
        t = np.tanh(self.data)
        return Value(t, (self,), lambda g: (g * (1 - t * t),))

    def sum(self) -> Value:
        x = self.data
        return Value(np.asarray(x.sum(), dtype=x.dtype), (self,), lambda g: (np.full_like(x, g),))

    def view(self, *shape: int) -> Value:
        old = self.data.shape
        return Value(self.data.reshape(shape), (self,), lambda g: (g.reshape(old),))

    def relu(self) -> Value:
        r = np.maximum(self.data, 0)
        return Value(r, (self,), lambda g: (g * (r > 0),))

    def log_softmax(self) -> Value:
        x = self.data
        shifted = x - x.max(axis=1, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        return Value(out, (self,), lambda g: (g - np.exp(out) * g.sum(axis=1, keepdims=True),))

    def nll_loss(self, target: Any, rows: Any) -> Value:
        log_probs = self.data
        n = log_probs.shape[0]

        def backward(g: Any) -> tuple[Any, ...]:
            d = np.zeros_like(log_probs)
            d[rows, target] = -g / n
            return (d,)

        loss = np.asarray(-log_probs[rows, target].sum() / n, dtype=log_probs.dtype)
        return Value(loss, (self,), backward)

    def backward(self) -> None:
        """Run the graph from this scalar: each node once, after every node that feeds it."""
        order: list[Value] = []
        seen: set[int] = set()
        stack: list[tuple[Value, bool]] = [(self, False)]
        while stack:
            v, done = stack.pop()
            if done:
                order.append(v)
            elif id(v) not in seen:
                seen.add(id(v))
                stack.append((v, True))
                stack.extend((p, False) for p in v.parents)
        grads: dict[int, Any] = {id(self): np.ones_like(self.data)}
        for v in reversed(order):
            g = grads.pop(id(v), None)
            if g is None:
                continue
            if v.backward_fn is None:  # a leaf: the first gradient is kept as it is
                v.grad = g if v.grad is None else v.grad + g
                continue
            for parent, pg in zip(v.parents, v.backward_fn(g), strict=True):
                if pg is None or not parent.wants_grad:
                    continue
                key = id(parent)
                grads[key] = pg if key not in grads else grads[key] + pg


def tensor(data: Any, requires_grad: bool = False) -> Value:
    """A leaf over ``data`` in float32 (torch's default dtype for Python floats)."""
    return Value(np.asarray(data, dtype=np.float32), wants_grad=requires_grad)


def zeros(size: int, requires_grad: bool = False) -> Value:
    """A leaf of ``size`` float32 zeros."""
    return Value(np.zeros(size, dtype=np.float32), wants_grad=requires_grad)
