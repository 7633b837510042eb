"""``Tensor.type``: with no argument the legacy type name (``'torch.FloatTensor'``); with a dtype or
a legacy name, self when it has that dtype, else a converted copy (``ToCopyBackward0``); torch's
refusals of other arguments."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

DTYPES = ["float32", "float64", "int64", "int32", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_type_name_is_torchs(dtype: str) -> None:
    same(lambda t: t.ones(2, dtype=getattr(t, dtype)).type())


@pytest.mark.parametrize("source", DTYPES)
@pytest.mark.parametrize(
    "wanted",
    [*DTYPES, "torch.FloatTensor", "torch.DoubleTensor", "torch.LongTensor", "torch.IntTensor",
     "torch.BoolTensor"],
)  # fmt: skip
def test_a_conversion_is_torchs(source: str, wanted: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -2.0], [0.0, 3.25]]).to(getattr(t, source))
        out = x.type(wanted if wanted.startswith("torch.") else getattr(t, wanted))
        return out, out is x, x._version

    same(program)


def test_a_conversion_is_differentiable_and_keeps_a_parameter_s_class_name() -> None:
    def program(t: Any) -> Any:
        x = t.ones(2, requires_grad=True)
        y = x.type(t.float64)
        y.sum().backward()
        p = t.nn.Parameter(t.ones(1))
        return y, y.grad_fn.name(), x.grad, p.type(), type(p.type(t.float64)).__name__

    same(program)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (("float",), {}),
        (("torch.Foo",), {}),
        ((1,), {}),
        (("int64",), {}),
        (("torch.int64", True, 3), {}),
        ((), {"dtype": "torch.LongTensor", "non_blocking": True}),
        (("torch.LongTensor",), {"foo": 1}),
    ],
)
def test_other_arguments_are_refused_as_torch_refuses_them(args: Any, kwargs: Any) -> None:
    same(lambda t: t.ones(2).type(*args, **kwargs))
