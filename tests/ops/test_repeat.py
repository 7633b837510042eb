"""``Tensor.repeat``: torch's values, dtypes and shapes (leading dims added, zeros), its refusals
(too few repeats, a negative result size, torch's ``TypeError``s), its node (``RepeatBackward0``)
and what it saves, and its gradients (the sum over the copies), first and second order."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same
from support.gradients import plain, same_node_and_gradients

TENSORS: dict[str, Any] = {
    "float32": lambda t: t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]),
    "float64": lambda t: t.tensor([1.5, -2.0], dtype=t.float64),
    "int64": lambda t: t.tensor([[3, -2], [7, 1]]),
    "int32": lambda t: t.tensor([2, 3, -4], dtype=t.int32),
    "bool": lambda t: t.tensor([True, False]),
    "0-d": lambda t: t.tensor(2.5),
    "empty": lambda t: t.zeros(2, 0),
    "transposed": lambda t: t.arange(6.0).reshape(2, 3).t(),
}
CALLS: dict[str, Any] = {
    "(1, 1)": lambda x: x.repeat(1, 1),
    "(2, 3)": lambda x: x.repeat(2, 3),
    "(2, 1, 2)": lambda x: x.repeat(2, 1, 2),
    "[3, 2]": lambda x: x.repeat([3, 2]),
    "((2, 2),)": lambda x: x.repeat((2, 2)),
    "repeats=": lambda x: x.repeat(repeats=(1, 2, 1)),
    "(0, 2)": lambda x: x.repeat(0, 2),
    "(2,)": lambda x: x.repeat(2),
    "()": lambda x: x.repeat(()),
    "(2, -1)": lambda x: x.repeat(2, -1),
    "(-1, 1, 2)": lambda x: x.repeat(-1, 1, 2),
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("tensor", TENSORS)
def test_values_dtypes_and_refusals_are_torchs(call: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        y = CALLS[call](x)
        return y, y.is_contiguous(), y.data_ptr() != x.data_ptr() or y.numel() == 0

    same(program)


REFUSALS: dict[str, Any] = {
    "no repeats": lambda t, x: x.repeat(),
    "a str": lambda t, x: x.repeat("a"),
    "a float among ints": lambda t, x: x.repeat(2.0, 1),
    "a bool among ints": lambda t, x: x.repeat(True, 2),
    "an unknown keyword": lambda t, x: x.repeat(sizes=(1, 2)),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_type_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t, t.ones(2, 3)), raises="TypeError")


def test_a_0d_int_tensor_counts_as_an_int() -> None:
    same(lambda t: t.ones(2, 3).repeat(t.tensor(2), 1))


@pytest.mark.parametrize("call", [k for k in CALLS if "-" not in k and k not in ("(2,)", "()")])
def test_nodes_saved_values_and_gradients_are_torchs(call: str) -> None:
    same_node_and_gradients(
        lambda t: t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True),
        lambda t, x: CALLS[call](x),
    )


def test_gradients_of_a_0d_tensor_are_torchs() -> None:
    def program(t: Any) -> Any:
        x = t.tensor(2.5, requires_grad=True)
        y, z = x.repeat(()), x.repeat(2, 3)
        (y * 3 + (z * t.arange(6.0).reshape(2, 3)).sum()).backward()
        return y, y.grad_fn, z.grad_fn._saved_self_sym_sizes, grad_of(x)

    same(program)


def test_second_order_gradients() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        out = (x.repeat(2, 1, 2) ** 3 * t.arange(24.0).reshape(2, 2, 6)).sum()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        return gx, plain(t.autograd.grad(gx.sum(), x))

    same(program)


def test_sizes_beyond_memory_are_torchs_refusals() -> None:
    same(lambda t: t.ones(1, 1).repeat(2**31, 2**31))  # bytes beyond int64
    same(lambda t: t.ones(1, 1).repeat(2**62, 2))
    # representable, not allocatable: 2**62 bytes. The first repeat is small, so the engine's
    # np.tile fails at once (2**30 twice would first fill 4 GB: ten seconds in every run)
    same(lambda t: t.ones(1, 1).repeat(2**20, 2**40))


def test_a_repeat_beyond_int64_is_torchs_type_error() -> None:
    # torch's message goes on with a C++ stack trace after the words compared here
    pattern = r"^repeat\(\): argument 'repeats' failed to unpack the object at pos 1 with error"
    same(lambda t: t.ones(2, 2).repeat(2**63, 1), raises="TypeError", message=pattern)
