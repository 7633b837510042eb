"""A Python float beside a floating tensor (``x * 1.01``, ``x + 0.1``, ``x - 0.05``) is handed
to numpy as a shared 0-d array of the tensor's dtype (``ownership.ops.float_operands``): the
same values as the float itself, bit for bit, and as torch's.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from ownership.ops.float_operands import float_operand

from support.differential import grad_of, same

F32_MAX = float(np.finfo(np.float32).max)
NUMBERS = [
    0.1,
    -0.05,
    1.01,
    1 / 3,
    1.0 + 2.0**-24,  # halfway between two float32s: rounds to even
    1.0 + 3 * 2.0**-25,
    1e-45,  # float32's smallest subnormal, rounded
    3e-39,  # a float32 subnormal
    -1e-310,  # a float64 subnormal, zero in float32
    F32_MAX,
    F32_MAX * (1 + 2.0**-25),  # rounds to float32's largest
    1e39,  # beyond float32: inf
    -1e300,
    0.0,
    -0.0,
    float("nan"),
    float("inf"),
    float("-inf"),
]
ARRAYS = {
    "1-d": np.array([0.5, -0.25, 1.0, 3e38, -2e-38, 0.0]),
    "0-d": np.array(-1.5),
    "F-order": np.asfortranarray(np.arange(6.0).reshape(2, 3) - 2.5),
    "empty": np.zeros((0, 3)),
}
UFUNCS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}


def _bits(x: Any) -> tuple[Any, ...]:
    arr = np.asarray(x)
    return (type(x), arr.dtype, arr.shape, arr.flags.f_contiguous, arr.tobytes(order="A"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
def test_the_operand_computes_what_the_float_computes(dtype: Any, number: float) -> None:
    """Every ufunc of the three ops, every kind of array: the same result, bit for bit (the
    Python float is what numpy read before the fast path)."""
    with np.errstate(all="ignore"):
        for arr in ARRAYS.values():
            a = arr.astype(dtype, order="K")
            for ufunc in UFUNCS.values():
                fast = ufunc(a, float_operand(number, a.dtype))
                assert _bits(fast) == _bits(ufunc(a, number))


def test_the_operand_is_shared_read_only_and_never_a_zero_or_non_finite() -> None:
    f32 = np.dtype(np.float32)
    made = float_operand(0.1, f32)
    assert isinstance(made, np.ndarray) and made.shape == () and made.dtype == f32
    assert float_operand(0.1, f32) is made and not made.flags.writeable
    for kept_as_float in (0.0, -0.0, float("nan"), float("inf"), 1e39):
        assert type(float_operand(kept_as_float, f32)) is float
    assert type(float_operand(0.1, np.dtype(np.float16))) is float  # only float32 and float64
    assert type(float_operand(0.1, np.dtype(np.int64))) is float


def number_ops(number: float, dtype: str) -> Any:
    def program(t: ModuleType) -> Any:
        x = t.tensor([0.5, -0.25, 1.0, 3e38, -2e-38, 0.0], dtype=getattr(t, dtype))
        x.requires_grad_()
        outs = [x * number, x + number, x - number, 2 * x * number]
        t.stack(outs).sum().backward()
        return [*outs, grad_of(x)]

    return program


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("number", [0.1, -0.05, 1.01, 1 / 3, 1e-45, 1e39, -0.0], ids=repr)
def test_products_and_sums_by_a_float_are_torchs(number: float, dtype: str) -> None:
    same(number_ops(number, dtype))


OPS_WITH_A_DOUBLE_SCALAR = {
    "a * s": lambda a, s: a * s,
    "a.mul_(s)": lambda a, s: a.clone().mul_(s),
    "a view's mul_(s)": lambda a, s: a.clone().view_as(a).mul_(s),
    "a + s - s": lambda a, s: a + s - s,
    "a.add_(s).sub_(s)": lambda a, s: a.clone().add_(s).sub_(s),
}


@pytest.mark.parametrize("op", OPS_WITH_A_DOUBLE_SCALAR.values(), ids=OPS_WITH_A_DOUBLE_SCALAR)
def test_a_float64_0d_tensor_is_cast_to_the_float32_op_first(op: Any) -> None:
    """fuzz 795454: a float32 tensor and a 0-d float64 tensor compute in float32 (the 0-d
    tensor does not promote), and torch casts the operand to float32 before it computes: 2e133
    is inf there, so ``0 * s`` is nan and ``a + s - s`` is nan. The engine computed in float64
    and cast the result."""

    def program(t: ModuleType) -> Any:
        a = t.tensor([0.0, 1.0, -1.0, 3.5])
        return [op(a, t.tensor(v, dtype=t.float64)) for v in (2e133, 1e-60, 0.1)]

    same(program)
