"""The operands of the training step's elementwise ops agree with torch.

- ``add``/``sub``/``mul`` of a tensor and a bias (a tensor of the same dtype whose shape ends the
  other's), and of shapes that are no bias: torch's values, nodes, gradients and errors.
- ``mul``/``add``/``sub`` of a floating tensor by a Python float: the float in the tensor's dtype.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import ownership

from support.differential import grad_of, same

# (shape of a, shape of b, dtype): b's shape ends a's (a bias), or it does not
BIAS_CASES = [
    ((2, 4), (4,), "float32"),
    ((3, 2, 4), (2, 4), "float32"),
    ((3, 2, 4), (4,), "float64"),
    ((2, 4), (2, 4), "float32"),
    ((4,), (4,), "float64"),
    ((2, 4), (), "float32"),
    ((), (), "float32"),
    ((0, 4), (4,), "float32"),
    ((2, 0), (0,), "float64"),
    ((2, 4), (4,), "int64"),
    ((2, 4), (4,), "bool"),
]
NOT_BIAS = [
    ((2, 4), (1, 4), "float32"),  # broadcasts, but b has a dimension of its own
    ((2, 4), (2, 1), "float32"),
    ((4,), (2, 4), "float32"),  # b the larger
    ((2, 4), (3,), "float32"),  # does not broadcast: torch's error
    ((2, 4), (4,), "mixed"),  # another dtype: promotion
]
OPS = ["add", "add alpha", "sub", "sub alpha", "mul"]


def _operands(
    t: ModuleType, a_shape: tuple[int, ...], b_shape: tuple[int, ...], dtype: str
) -> tuple[Any, Any]:
    """Random operands of these shapes, both of ``dtype`` ("mixed": float32 and float64)."""
    rng = np.random.default_rng(11)
    a_values = rng.standard_normal(a_shape) * 3
    b_values = rng.standard_normal(b_shape) * 3
    if dtype == "mixed":
        return t.tensor(a_values, dtype=t.float32), t.tensor(b_values, dtype=t.float64)
    if dtype == "bool":
        a_values, b_values = a_values > 0, b_values > 0
    elif dtype == "int64":
        a_values, b_values = np.round(a_values), np.round(b_values)
    dt = getattr(t, dtype)
    return t.tensor(np.asarray(a_values), dtype=dt), t.tensor(np.asarray(b_values), dtype=dt)


def _apply(op: str, a: Any, b: Any) -> Any:
    if op == "add":
        return a + b
    if op == "add alpha":
        return a.add(b, alpha=0.5 if a.dtype.is_floating_point else 2)
    if op == "sub":
        return a - b
    if op == "sub alpha":
        return a.sub(b, alpha=-1.5 if a.dtype.is_floating_point else 3)
    return a * b


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize(("a_shape", "b_shape", "dtype"), BIAS_CASES + NOT_BIAS)
def test_bias_operands_agree_with_torch(op: str, a_shape: Any, b_shape: Any, dtype: str) -> None:
    def program(t: ModuleType) -> Any:
        a, b = _operands(t, a_shape, b_shape, dtype)
        if a.dtype.is_floating_point and b.dtype.is_floating_point:
            a.requires_grad_(True)
            b.requires_grad_(True)
        out = _apply(op, a, b)
        if out.requires_grad:
            (out * out).sum().backward()
        return out, out.grad_fn, grad_of(a), grad_of(b)

    same(program)


def test_a_bias_that_is_a_view_or_an_inference_tensor_agrees_with_torch() -> None:
    def program(t: ModuleType) -> Any:
        w = t.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], requires_grad=True)
        x = t.tensor([[0.5, 1.5, -2.5], [1.0, 2.0, 3.0], [-1.0, 0.0, 4.0]])
        out = x + w[1]  # the bias a view of a leaf
        out.sum().backward()
        with t.inference_mode():
            frozen = t.tensor([0.5, -0.5, 2.0])
        late = x * frozen  # an inference tensor as the bias, outside inference mode
        return out, out.grad_fn, grad_of(w), late, late.requires_grad

    same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("number", [0.1, -2.5, 1e-45, 3.5e38, 1e300, float("inf"), float("nan")])
def test_a_float_operand_takes_the_general_answer(dtype: str, number: float) -> None:
    """``mul``/``add``/``sub`` of a floating tensor by a Python float: ``binary_operands``
    answers the float itself, in the tensor's dtype; the values are those of the float as a 0-d
    tensor of that dtype (the general path of a tensor operand that broadcasts)."""
    from ownership.ops.common import binary_operands

    a = ownership.tensor(np.asarray([[1.5, -0.25, 3.0], [0.0, -0.0, 7.0]]).astype(dtype))
    raw, dt = binary_operands(a, number)
    assert raw is number and dt is a.dtype
    as_tensor = ownership.tensor(number, dtype=dt)
    for op in ("mul", "add", "sub"):
        fast = getattr(a, op)(number)
        slow = getattr(a, op)(as_tensor)
        assert fast.dtype == slow.dtype == dt and fast.stride() == slow.stride()
        np.testing.assert_array_equal(fast._data, slow._data)
