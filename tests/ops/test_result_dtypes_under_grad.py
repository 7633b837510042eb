"""A reduction or softmax asked for a result dtype (``dtype=``) on a tensor that requires grad:
torch records no integer or bool result (``Autograd not support dtype: Long``, raised after the
op's own argument errors), ``mean`` names the dtype it was given, and ``softmax``/``log_softmax``
first convert their input (``ToCopyBackward0``), so an integer dtype reaches the kernel's
refusal, or an empty integer result with no history."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def leaf(t: Any) -> Any:
    return t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)


REDUCTIONS: dict[str, Any] = {
    "sum int64": lambda t, x: x.sum(dtype=t.int64),
    "torch.sum int32": lambda t, x: t.sum(x, dtype=t.int32),
    "sum dim bool": lambda t, x: x.sum(0, dtype=t.bool),
    "sum dims keepdim": lambda t, x: x.sum((0, 1), True, dtype=t.int64),
    "sum bad dim first": lambda t, x: x.sum(5, dtype=t.int64),
    "sum float64": lambda t, x: x.sum(1, dtype=t.float64),
    "mean int64": lambda t, x: x.mean(dtype=t.int64),
    "mean dim int32": lambda t, x: x.mean(0, dtype=t.int32),
    "mean of ints": lambda t, x: t.tensor([1, 2]).mean(),
    "mean of ints dtype": lambda t, x: t.tensor([1, 2]).mean(dtype=t.int64),
    "cumsum int64": lambda t, x: x.cumsum(0, dtype=t.int64),
    "prod int64": lambda t, x: x.prod(dtype=t.int64),
}


@pytest.mark.parametrize("form", REDUCTIONS)
def test_reductions_to_a_dtype_are_torchs(form: str) -> None:
    same(lambda t: REDUCTIONS[form](t, leaf(t)))


def test_sum_to_an_integer_dtype_without_grad_is_torchs() -> None:
    def program(t: Any) -> Any:
        x = leaf(t)
        with t.no_grad():
            return [x.sum(dtype=t.int64), x.detach().sum(0, dtype=t.bool)]

    same(program)


SOFTMAXES: dict[str, Any] = {
    "softmax int64": lambda t, x: x.softmax(0, dtype=t.int64),
    "softmax int64 last dim": lambda t, x: t.softmax(x, 1, dtype=t.int64),
    "log_softmax bool": lambda t, x: x.log_softmax(-1, dtype=t.bool),
    "F.softmax int32": lambda t, x: t.nn.functional.softmax(x, 0, dtype=t.int32),
    "F.log_softmax 0-d int64": lambda t, x: t.nn.functional.log_softmax(x[0, 0], 0, dtype=t.int64),
    "empty int64": lambda t, x: x[:0].softmax(0, dtype=t.int64),
    "empty bool": lambda t, x: x[:, :0].log_softmax(1, dtype=t.bool),
    "ints to float64": lambda t, x: t.tensor([1, 2]).softmax(0, dtype=t.float64),
    "float64 graph": lambda t, x: x.softmax(1, dtype=t.float64).grad_fn.next_functions,
    "same dtype graph": lambda t, x: x.log_softmax(1, dtype=t.float32).grad_fn.next_functions,
}


@pytest.mark.parametrize("form", SOFTMAXES)
def test_softmax_to_a_dtype_is_torchs(form: str) -> None:
    same(lambda t: SOFTMAXES[form](t, leaf(t)))


def test_softmax_to_float64_has_torchs_gradient() -> None:
    def program(t: Any) -> Any:
        x = leaf(t)
        y = x.log_softmax(1, dtype=t.float64)
        (y * t.tensor([1.0, 2.0, 3.0], dtype=t.float64)).sum().backward()
        return [y, x.grad]

    same(program)
