"""``mul``'s backward multiplies without the op where the op could not differ, as torch does.

:func:`ownership.ops.arithmetic.grad_times` computes ``gr * other`` straight from the arrays when
grad mode is off, ``gr`` is floating and ``other`` is a tensor of its dtype and shape or a Python
float; every other case (broadcasting, an int or bool number, another dtype, ``create_graph``, a
hook's gradient of a wrong shape) goes through ``mul``. Both agree with each other and with torch.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import ownership
from ownership.ops.arithmetic import grad_times

from support.differential import same

FORWARDS: dict[str, Callable[[ModuleType, Any, Any], Any]] = {
    "same shape": lambda t, x, y: x * y,
    "self times self": lambda t, x, y: x * x,
    "broadcast": lambda t, x, y: x * y.sum(0, keepdim=True),
    "float": lambda t, x, y: x * 2.5,
    "int": lambda t, x, y: x * 3,
    "bool": lambda t, x, y: x * True,
    "other dtype": lambda t, x, y: x * y.double(),
    "int tensor": lambda t, x, y: x * t.tensor([[1, 2, 3]]),
}


def mul_grads(t: ModuleType, forward: str, dtype: str, huge: bool, create_graph: bool) -> Any:
    dt = getattr(t, dtype)
    scale = float(np.finfo(dtype).max) / 2 if huge else 1.0
    x = t.tensor(np.linspace(-1, 2, 6).reshape(2, 3) * scale, dtype=dt, requires_grad=True)
    y = t.tensor(np.linspace(3, -2, 6).reshape(2, 3), dtype=dt, requires_grad=True)
    out = FORWARDS[forward](t, x, y)
    grads = t.autograd.grad((out * out).sum(), (x, y), create_graph=create_graph, allow_unused=True)
    names = [None if g is None or g.grad_fn is None else g.grad_fn.name() for g in grads]
    return [*grads, names]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("huge", [False, True], ids=["finite", "overflow"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("forward", FORWARDS)
def test_mul_gradients_are_torchs(forward: str, dtype: str, huge: bool, create_graph: bool) -> None:
    same(lambda t: mul_grads(t, forward, dtype, huge, create_graph))


def test_a_hooks_gradient_of_a_wrong_shape_raises_muls_error() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(2, 3, requires_grad=True)
        y = t.ones(2, 3, requires_grad=True)
        out = x * y
        out.register_hook(lambda g: t.ones(4, 5))
        out.sum().backward()

    same(program)


OTHERS: dict[str, Callable[[Any], Any]] = {
    "same shape": lambda g: ownership.tensor(np.full(g.shape, 3.0, dtype=np.float32)),
    "float": lambda g: 0.1,
    "int": lambda g: 3,
    "broadcast": lambda g: ownership.tensor(np.float32(2.0)),
    "float64": lambda g: ownership.tensor(np.full(g.shape, 3.0)),
    "huge": lambda g: ownership.tensor(np.full(g.shape, 3e38, dtype=np.float32)),
}


@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("grad_mode", ["no_grad", "enable_grad"])
def test_grad_times_is_the_op(other: str, grad_mode: str) -> None:
    gr = ownership.tensor(np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3))
    with getattr(ownership, grad_mode)():
        fast = grad_times(gr, OTHERS[other](gr))
        slow = gr * OTHERS[other](gr)
    assert fast.dtype is slow.dtype and fast.stride() == slow.stride()
    assert fast._version == slow._version == 0 and fast.grad_fn is slow.grad_fn is None
    np.testing.assert_array_equal(fast.numpy(), slow.numpy())
