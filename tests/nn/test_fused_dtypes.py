"""Fused ops check dtypes as torch does: no silent truncation, no silent promotion.

A fused kernel (addmm behind ``nn.Linear``, batch norm, ``where``, the losses) does not promote
its operands: a dtype mismatch is torch's error, word for word. Where torch does promote
(``mse_loss``, ``where`` with Python scalars), the result has torch's dtype. And ``from_numpy``
never relabels an array of a dtype the engine lacks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ownership

from support.differential import same

LINEAR: dict[str, Any] = {
    "int64_input_2d": lambda t: t.nn.Linear(3, 2)(t.ones(2, 3, dtype=t.int64)),
    "int64_input_1d": lambda t: t.nn.Linear(3, 2)(t.ones(3, dtype=t.int64)),
    "float64_input_2d": lambda t: t.nn.Linear(3, 2)(t.ones(2, 3, dtype=t.float64)),
    "float64_input_3d": lambda t: t.nn.Linear(3, 2)(t.ones(4, 2, 3, dtype=t.float64)),
    "float64_bias": lambda t: t.nn.functional.linear(
        t.ones(2, 3), t.ones(2, 3), t.ones(2, dtype=t.float64)
    ),
    "float64_bias_1d_input": lambda t: t.nn.functional.linear(
        t.ones(3), t.ones(2, 3), t.ones(2, dtype=t.float64)
    ),
    "int64_bias": lambda t: t.nn.functional.linear(
        t.ones(2, 3), t.ones(2, 3), t.ones(2, dtype=t.int64)
    ),
    "float64_0d_bias": lambda t: t.nn.functional.linear(
        t.ones(2, 3), t.ones(2, 3), t.tensor(1.0, dtype=t.float64)
    ),
    "float64_bias_and_int64_input": lambda t: t.nn.functional.linear(
        t.ones(2, 3, dtype=t.int64), t.ones(2, 3), t.ones(2, dtype=t.float64)
    ),
    "int64_input_no_bias": lambda t: t.nn.functional.linear(
        t.ones(2, 3, dtype=t.int64), t.ones(2, 3)
    ),
    "float64_weight_3d_input": lambda t: t.nn.functional.linear(
        t.ones(2, 2, 3), t.ones(2, 3, dtype=t.float64), t.ones(2)
    ),
    "float64_bias_transposed_input": lambda t: t.nn.functional.linear(
        t.ones(2, 3, 2).transpose(1, 2), t.ones(2, 3), t.ones(2, dtype=t.float64)
    ),
    "all_float64": lambda t: t.nn.functional.linear(
        t.ones(2, 3, dtype=t.float64), t.ones(2, 3, dtype=t.float64), t.ones(2, dtype=t.float64)
    ),
    "all_int64": lambda t: t.nn.functional.linear(
        t.ones(2, 3, dtype=t.int64), t.ones(2, 3, dtype=t.int64), t.ones(2, dtype=t.int64)
    ),
    "matmul_int64_float": lambda t: t.matmul(t.ones(2, 3, dtype=t.int64), t.ones(3, 2)),
    # torch folds a batch into rows only without a copy; otherwise bmm, with bmm's words
    "matmul_transposed_3d_float64_2d": lambda t: t.matmul(
        t.ones(4, 2, 3).transpose(0, 1), t.ones(3, 5, dtype=t.float64)
    ),
    "matmul_2d_float64_3d": lambda t: t.matmul(t.ones(3, 4), t.ones(2, 4, 5, dtype=t.float64)),
    "matmul_1d_float64_3d": lambda t: t.matmul(t.ones(4), t.ones(2, 4, 5, dtype=t.float64)),
    "matmul_3d_float64_1d": lambda t: t.matmul(
        t.ones(4, 2, 3).transpose(0, 1), t.ones(3, dtype=t.float64)
    ),
    "addmm_int64_mat1": lambda t: t.addmm(t.ones(2), t.ones(2, 3, dtype=t.int64), t.ones(3, 2)),
    "addmm_float64_input": lambda t: t.addmm(
        t.ones(2, dtype=t.float64), t.ones(2, 3), t.ones(3, 2)
    ),
    "addmm_float64_input_before_shapes": lambda t: t.addmm(
        t.ones(2, dtype=t.float64), t.ones(2, 3, dtype=t.int64), t.ones(4, 2)
    ),
    "addmm_float64_mat2": lambda t: t.addmm(t.ones(2), t.ones(2, 3), t.ones(3, 2, dtype=t.float64)),
}


@pytest.mark.parametrize("case", sorted(LINEAR))
def test_linear_and_matmul_refuse_mixed_dtypes(case: str) -> None:
    def program(t):
        t.manual_seed(0)
        return LINEAR[case](t)

    same(program)


def test_linear_with_an_int64_input_is_refused_not_truncated() -> None:
    def program(t):
        t.manual_seed(0)
        return t.nn.Linear(3, 2)(t.ones(2, 3, dtype=t.int64))

    r = same(program)
    assert r.message == "mat1 and mat2 must have the same dtype, but got Long and Float"


BATCH_NORM_DTYPES = {"f": "float32", "d": "float64", "l": "int64", "i": "int32", "b": "bool"}


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize(
    "combo",
    # input, weight, bias, running_mean, running_var ("n": not given)
    [
        "fffff",
        "dffff",
        "lffff",
        "iffff",
        "bffff",
        "lnnnn",
        "fnndf",
        "fnnfd",
        "fdfff",
        "ffdff",
        "dnnff",
        "ffdnn",
        "dnndd",
        "ddddd",
        "fnnll",
        "dfffd",
        "dffdf",
        "ddfdd",
        "fnnnn",
    ],
)
def test_batch_norm_checks_dtypes_as_torch(combo: str, training: bool) -> None:
    def program(t):
        def make(c, n):
            return None if c == "n" else t.ones(n).to(getattr(t, BATCH_NORM_DTYPES[c]))

        x = t.ones(4, 3).to(getattr(t, BATCH_NORM_DTYPES[combo[0]]))
        weight, bias, mean, var = (make(c, 3) for c in combo[1:])
        return t.nn.functional.batch_norm(x, mean, var, weight, bias, training=training)

    same(program)


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_batchnorm1d_module_refuses_an_input_of_another_dtype(dtype: str) -> None:
    def program(t):
        return t.nn.BatchNorm1d(3)(t.ones(4, 3, dtype=getattr(t, dtype)))

    same(program)


MSE = [
    ("int64", "int64", "mean"),
    ("int64", "int64", "sum"),
    ("int32", "int64", "none"),
    ("bool", "bool", "mean"),
    ("int64", "float32", "mean"),
    ("float32", "int64", "mean"),
    ("float64", "float32", "sum"),
    ("float32", "float64", "none"),
]


@pytest.mark.parametrize(("a", "b", "reduction"), MSE)
def test_mse_loss_dtypes_follow_promotion(a: str, b: str, reduction: str) -> None:
    def program(t):
        x = t.tensor([1, 2, 0]).to(getattr(t, a))
        y = t.tensor([0, 2, 1]).to(getattr(t, b))
        return t.nn.functional.mse_loss(x, y, reduction=reduction)

    same(program)


def test_mse_loss_gradient_takes_each_inputs_dtype() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = t.tensor([0.5, 1.0], dtype=t.float64, requires_grad=True)
        loss = t.nn.functional.mse_loss(x, y)
        loss.backward()
        return [loss, x.grad, y.grad]

    same(program)


@pytest.mark.parametrize("target", ["int32", "bool", "float32"])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_class_targets_must_be_int64(loss: str, target: str) -> None:
    def program(t):
        fn = getattr(t.nn.functional, loss)
        return fn(t.ones(2, 3), t.tensor([0, 1]).to(getattr(t, target)))

    same(program)


@pytest.mark.parametrize("cond", ["int64", "float32", "int32"])
def test_where_needs_a_bool_condition(cond: str) -> None:
    def program(t):
        return t.where(t.tensor([1, 0]).to(getattr(t, cond)), t.ones(2), t.zeros(2))

    same(program)


WHERE = {
    "float_scalars": lambda t, c: t.where(c, 1.0, 0.0),
    "int_scalars": lambda t, c: t.where(c, 1, 0),
    "bool_scalars": lambda t, c: t.where(c, True, False),
    "mixed_scalars": lambda t, c: t.where(c, 1, 0.5),
    "float64_tensor_scalar": lambda t, c: t.where(c, t.ones(2, dtype=t.float64), 0.5),
    "int64_tensor_float_scalar": lambda t, c: t.where(c, t.ones(2, dtype=t.int64), 0.5),
    "int32_tensor_int_scalar": lambda t, c: t.where(c, t.ones(2, dtype=t.int32), 7),
    "float32_and_float64_0d": lambda t, c: t.where(c, t.ones(2), t.tensor(2.0, dtype=t.float64)),
    "int64_and_float32_0d": lambda t, c: t.where(c, t.ones(2, dtype=t.int64), t.tensor(2.0)),
    "two_tensors": lambda t, c: t.where(c, t.ones(2, dtype=t.int32), t.zeros(2, dtype=t.float64)),
    "method": lambda t, c: t.ones(2, dtype=t.int64).where(c, 0.5),
    "method_int_condition": lambda t, c: t.ones(2).where(c.long(), 0.5),
    "int64_0d_and_float32": lambda t, c: t.where(c, t.tensor(1), t.ones(2)),
    "float32_0d_and_int64": lambda t, c: t.where(c, t.tensor(1.5), t.ones(2, dtype=t.int64)),
    "float_scalar_and_int64": lambda t, c: t.where(c, 1.5, t.ones(2, dtype=t.int64)),
    # one argument: nonzero(condition, as_tuple=True)
    "condition_only": lambda t, c: t.where(c),
    "condition_only_2d_int": lambda t, c: t.where(t.tensor([[1, 0], [2, 3]])),
    "condition_only_0d": lambda t, c: t.where(t.tensor(True)),
}


@pytest.mark.parametrize("case", sorted(WHERE))
def test_where_result_dtype_is_torchs(case: str) -> None:
    def program(t):
        return WHERE[case](t, t.tensor([True, False]))

    same(program)


def test_where_under_a_changed_default_dtype() -> None:
    def program(t):
        t.set_default_dtype(t.float64)
        try:
            return t.where(t.tensor([True, False]), 1.0, 0)
        finally:
            t.set_default_dtype(t.float32)

    same(program)


@pytest.mark.parametrize("np_dtype", ["uint8", "float16", "int16", "int8", "uint32"])
def test_from_numpy_refuses_a_dtype_the_engine_lacks(np_dtype: str) -> None:
    """torch supports more numpy dtypes than ownership; ownership never relabels one, it says
    which dtype it lacks (tests/tensor/test_numpy.py compares every numpy dtype with torch)."""
    arr = np.array([200, 100]).astype(np_dtype)
    with pytest.raises(
        NotImplementedError, match=rf"^ownership does not implement torch.{np_dtype} "
    ):
        ownership.from_numpy(arr)
    with pytest.raises(
        NotImplementedError, match=rf"^ownership does not implement torch.{np_dtype} "
    ):
        ownership.tensor(arr)


def test_from_numpy_of_an_unsupported_type_is_a_type_error_in_both() -> None:
    def program(t):
        return t.from_numpy(np.array(["a", "b"]))

    same(program, message=r"^can't convert np\.ndarray of type numpy\.str_\. The only supported")


@pytest.mark.parametrize("np_dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_from_numpy_of_a_supported_dtype_shares_memory(np_dtype: str) -> None:
    def program(t):
        arr = np.array([1, 0, 1]).astype(np_dtype)
        x = t.from_numpy(arr)
        arr[1] = 1
        return [x, x + x]

    same(program)


@pytest.mark.parametrize(
    "scales", [{}, {"beta": 0.5}, {"alpha": 2}, {"beta": 0, "alpha": -1.5}, {"beta": 2, "alpha": 0}]
)
def test_addmm_with_beta_and_alpha(scales: dict[str, float]) -> None:
    def program(t):
        b = t.tensor([1.0, float("nan")], requires_grad=True)  # beta=0 ignores the nan
        a = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        c = t.tensor([[0.5, 1.0], [2.0, -1.0]], requires_grad=True)
        out = t.addmm(b, a, c, **scales)
        out.backward(t.tensor([[1.0, 2.0], [3.0, 4.0]]))
        return [out, b.grad, a.grad, c.grad]

    same(program)
