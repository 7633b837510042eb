"""Ops torch has no Bool kernel for refuse with its words, and clamp's result type follows
torch's promotion over self, min and max (a tensor bound included)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

C = [True, False]
M = [[True, False], [False, True]]

CASES: dict[str, Any] = {
    "abs_bool": lambda t: t.tensor(C).abs(),
    "abs_bool_0d": lambda t: t.abs(t.tensor(True)),
    "abs_int": lambda t: t.tensor([-1, 2]).abs(),
    "dot_bool": lambda t: t.tensor(C) @ t.tensor(C),
    "mv_bool": lambda t: t.tensor(M) @ t.tensor(C),
    "vm_bool": lambda t: t.tensor(C) @ t.tensor(M),
    "mm_bool": lambda t: t.tensor(M) @ t.tensor(M),
    "bmm_bool": lambda t: t.tensor([M]) @ t.tensor([M]),
    "clamp_bool_min": lambda t: t.tensor(C).clamp(min=False),
    "clamp_bool_max": lambda t: t.tensor(C).clamp(max=True),
    "clamp_bool_both": lambda t: t.tensor(C).clamp(False, True),
    "clamp_bool_int": lambda t: t.tensor(C).clamp(0, 1),
    "clamp_bool_float": lambda t: t.tensor(C).clamp(max=0.5),
    "clamp_bool_tensor_min": lambda t: t.tensor(C).clamp(min=t.tensor(False)),
    "clamp_bool_tensors": lambda t: t.tensor(C).clamp(t.tensor(False), t.tensor(True)),
    "clamp_bool_int_tensor": lambda t: t.tensor(C).clamp(min=t.tensor(0)),
    "clamp_int_float_tensor": lambda t: t.tensor([1, 5]).clamp(min=t.tensor(2.5)),
    "clamp_float_float64_tensor": lambda t: t.tensor([1.0, 5.0]).clamp(
        min=t.tensor([2.5, 0.0], dtype=t.float64)
    ),
    "clamp_int_scalars": lambda t: t.tensor([1, 5]).clamp(2, 3.5),
}


@pytest.mark.parametrize("program", CASES.values(), ids=CASES.keys())
def test_bool_kernels_and_clamp_promotion(program: Any) -> None:
    same(program)


# The elementwise functions of one tensor, out of place and in place: methods, then other spellings.
METHODS = (
    "relu", "relu_", "abs", "abs_", "neg", "neg_", "sign", "sigmoid", "sigmoid_", "exp", "exp_",
    "log", "log_", "sqrt", "sqrt_", "tanh", "tanh_", "sin", "sin_", "cos", "cos_", "log1p_",
    "expm1_", "erf_", "floor_",
)  # fmt: skip
FUNCTIONS: dict[str, Any] = {
    "torch.relu": lambda t, x: t.relu(x),
    "torch.relu_": lambda t, x: t.relu_(x),
    "F.relu": lambda t, x: t.nn.functional.relu(x),
    "F.relu inplace": lambda t, x: t.nn.functional.relu(x, inplace=True),
    "nn.ReLU(inplace=True)": lambda t, x: t.nn.ReLU(inplace=True)(x),
    "F.leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x),
    "F.leaky_relu_": lambda t, x: t.nn.functional.leaky_relu_(x),
    "F.threshold": lambda t, x: t.nn.functional.threshold(x, 0, 5),
    "torch.threshold": lambda t, x: t.threshold(x, 0.5, 0),
}
OPERANDS: dict[str, Any] = {
    "bool": lambda t: t.tensor([True, False]),
    "empty bool": lambda t: t.zeros(0, 2, dtype=t.bool),
    "expanded bool": lambda t: t.tensor([True]).expand(3),
    "int64": lambda t: t.tensor([-2, 0, 3]),
    "expanded int32": lambda t: t.tensor([-2, 3], dtype=t.int32).expand(2, 2),
    "float32": lambda t: t.tensor([-1.5, 0.0, 2.0]),
}


@pytest.mark.parametrize("operand", OPERANDS)
@pytest.mark.parametrize("function", [*METHODS, *FUNCTIONS])
def test_elementwise_functions_over_bool_and_integer_tensors(function: str, operand: str) -> None:
    """Each function computes, or refuses with torch's words in torch's order: relu and neg
    refuse a bool tensor before anything else; a kernel without a bool or integer form (abs,
    leaky_relu, threshold, floor) refuses it after the overlap check of the written tensor; a
    float function written into an integer or bool tensor cannot cast its result back."""

    def program(t: Any) -> Any:
        x = OPERANDS[operand](t)
        out = getattr(x, function)() if function in METHODS else FUNCTIONS[function](t, x)
        return out, x, x._version

    same(program)


EMPTY_PRODUCTS: dict[str, Any] = {
    "mm, empty inner": lambda t, B: B(1, 0) @ B(0, 1),
    "mm, empty result": lambda t, B: B(0, 1) @ B(1, 0),
    "mm, empty rows": lambda t, B: B(0, 2) @ B(2, 2),
    "mm, empty columns": lambda t, B: B(2, 2) @ B(2, 0),
    "Tensor.mm": lambda t, B: B(3, 0).mm(B(0, 2)),
    "mv, empty inner": lambda t, B: B(1, 0).mv(B(0)),
    "mv, empty rows": lambda t, B: B(0, 2).mv(B(2)),
    "vector @ matrix, empty inner": lambda t, B: B(0) @ B(0, 1),
    "bmm, empty inner": lambda t, B: t.bmm(B(2, 1, 0), B(2, 0, 3)),
    "bmm, empty batch": lambda t, B: t.bmm(B(0, 1, 2), B(0, 2, 3)),
    "batched @ matrix, empty inner": lambda t, B: B(2, 1, 0) @ B(0, 2),
    "dot, empty": lambda t, B: B(0) @ B(0),
    "mm": lambda t, B: B(2, 2) @ B(2, 2),
    "mv": lambda t, B: B(2, 2).mv(B(2)),
    "bmm": lambda t, B: t.bmm(B(2, 1, 2), B(2, 2, 3)),
}


@pytest.mark.parametrize("dtype", ["bool", "float32"])
@pytest.mark.parametrize("case", EMPTY_PRODUCTS)
def test_a_product_with_nothing_to_sum_is_zeros_even_in_bool(case: str, dtype: str) -> None:
    """torch's product kernels fill an empty result, or the zeros of a product over an empty
    inner dimension, before they dispatch on the dtype: only a bool product with something to
    sum is refused (``dot`` checks the dtype first)."""

    def program(t: Any) -> Any:
        return EMPTY_PRODUCTS[case](t, lambda *s: t.ones(*s, dtype=getattr(t, dtype)))

    same(program)


BMM_DTYPES = ["bool", "int32", "int64", "float32", "float64"]
BMM_SHAPES: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "small": ((2, 1, 3), (2, 3, 1)),
    "large": ((2, 20, 30), (2, 30, 10)),
    "empty result": ((2, 0, 3), (2, 3, 1)),
    "empty inner": ((2, 1, 0), (2, 0, 1)),
}


@pytest.mark.parametrize("shapes", BMM_SHAPES)
@pytest.mark.parametrize("second", BMM_DTYPES)
@pytest.mark.parametrize("first", BMM_DTYPES)
def test_bmm_checks_dtypes_in_torchs_order(first: str, second: str, shapes: str) -> None:
    """bmm (and ``@`` of 3-D operands) makes its result with the second operand's dtype; with
    something to sum, a small product refuses a bool first operand ("bmm" not implemented)
    before a dtype mismatch, a large one checks as ``addmm`` per batch entry (fuzz 311629,
    318182); an empty product is never refused."""
    sa, sb = BMM_SHAPES[shapes]

    def program(t: Any) -> Any:
        a = t.ones(sa, dtype=getattr(t, first))
        b = t.ones(sb, dtype=getattr(t, second))
        return t.bmm(a, b), a @ b

    same(program)
