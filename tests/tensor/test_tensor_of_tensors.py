"""``torch.tensor(data)`` of a list holding tensors: each tensor is one number.

A tensor is no sequence to torch's ``tensor()``: the sizes stop at it, the dtype is inferred
from its dtype (promoted with the rest), and its value is unpacked as a Python number of the
result's dtype: ``float(t)`` for a floating dtype (a tensor of other than one element: "only one
element tensors can be converted to Python scalars", a ValueError; one that requires grad warns
as ``float()`` does), ``t.__index__()`` for an integer or bool dtype (a floating tensor: a
TypeError). So ``torch.tensor([torch.ones(2), torch.ones(2)])`` is refused, and a list of
one-element tensors of any shape is a 1-d tensor.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

DATA: dict[str, Any] = {
    "two 2-element tensors": lambda t: [t.ones(2), t.ones(2)],
    "a tuple of them": lambda t: (t.ones(2), t.ones(2)),
    "one 2-element tensor": lambda t: [t.ones(2)],
    "nested 2-element tensor": lambda t: [[t.ones(2)]],
    "a number and a 2-element tensor": lambda t: [t.ones(2), 1.0],
    "empty tensors": lambda t: [t.ones(0), t.ones(0)],
    "1-element tensors": lambda t: [t.ones(1), t.zeros(1)],
    "1-element 2-d tensors": lambda t: [t.ones(1, 1), t.zeros(1, 1)],
    "nested 1-element tensors": lambda t: [[t.ones(1)], [t.zeros(1)]],
    "0-d float tensors": lambda t: [t.tensor(1.5), t.tensor(-2.0)],
    "0-d float64 tensors": lambda t: [
        t.tensor(0.1, dtype=t.float64),
        t.tensor(2.0, dtype=t.float64),
    ],
    "0-d int tensors": lambda t: [t.tensor(1), t.tensor(-7)],
    "0-d int32 tensors": lambda t: [t.tensor(1, dtype=t.int32), t.tensor(2, dtype=t.int32)],
    "0-d bool tensors": lambda t: [t.tensor(True), t.tensor(False)],
    "int tensor and float": lambda t: [t.tensor(1), 2.5],
    "float64 tensor and int": lambda t: [t.tensor(1.5, dtype=t.float64), 3],
    "bool tensor and int tensor": lambda t: [t.tensor(True), t.tensor(3)],
    "number and tensor": lambda t: [1.0, t.tensor(2.0)],
    "rows of tensors": lambda t: [[t.tensor(1.0), t.tensor(2.0)], [t.tensor(3.0), t.tensor(4.0)]],
    "ragged rows of tensors": lambda t: [[t.tensor(1.0), t.tensor(2.0)], [t.tensor(3.0)]],
}

DTYPES = [None, "float32", "float64", "int64", "bool"]


@pytest.mark.parametrize("dtype", DTYPES, ids=[str(d) for d in DTYPES])
@pytest.mark.parametrize("data", DATA.values(), ids=DATA.keys())
def test_tensor_of_a_list_holding_tensors(data: Any, dtype: str | None) -> None:
    def program(t: Any) -> Any:
        kwargs = {} if dtype is None else {"dtype": getattr(t, dtype)}
        y = t.tensor(data(t), **kwargs)
        return [y, y.dtype, y.shape, y.is_leaf, y.requires_grad]

    same(program)


def test_the_issues_program() -> None:
    facts = same(lambda t: t.tensor([t.ones(2), t.ones(2)]))
    assert (facts.kind, facts.message) == (
        "ValueError",
        "only one element tensors can be converted to Python scalars",
    )


def test_a_tensor_that_requires_grad_warns_as_float_does() -> None:
    def program(t: Any) -> Any:
        x = t.tensor(2.0, requires_grad=True)
        y = t.tensor([x, t.tensor(3.0)], requires_grad=True)
        (y * 2).sum().backward()
        return [y, y.grad, x.grad]

    same(program)
