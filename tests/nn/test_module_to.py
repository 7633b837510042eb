"""Module.to / float / double / type: parameters and buffers convert (to: floating ones only)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def _layer(t: ModuleType) -> Any:
    lin = t.nn.Linear(2, 1)
    with t.no_grad():
        lin.weight.copy_(t.tensor([[1.0, -2.0]]))
        lin.bias.fill_(0.5)
    lin.register_buffer("count", t.zeros((), dtype=t.int64))
    lin.register_buffer("mean", t.zeros(2))
    lin.note = t.ones(2)  # a plain attribute: the module does not own it
    return lin


@pytest.mark.parametrize("how", ["to", "double", "keyword"])
def test_floating_state_converts_and_parameters_keep_their_identity(how: str) -> None:
    def program(t: ModuleType) -> Any:
        lin = _layer(t)
        weight = lin.weight
        (lin(t.ones(2)) ** 2).sum().backward()
        converted = {
            "to": lambda: lin.to(t.float64),
            "double": lin.double,
            "keyword": lambda: lin.to(device="cpu", dtype=t.float64),
        }[how]()
        return {
            "same module": converted is lin,
            "same parameter": lin.weight is weight,
            "dtypes": [str(getattr(lin, n).dtype) for n in ("weight", "bias", "count", "mean")],
            "grad": lin.weight.grad,
            "plain attribute": lin.note,
            "output": lin(t.ones(2, dtype=t.float64)),
        }

    same(program)


def test_an_integer_dtype_is_refused() -> None:
    same(lambda t: t.nn.Linear(2, 1).to(t.int64))


def test_a_device_alone_changes_nothing() -> None:
    same(lambda t: _layer(t).to("cpu").weight)


@pytest.mark.parametrize(
    "dst",
    ["t.float64", "'torch.DoubleTensor'", "t.float32", "'torch.FloatTensor'", "'torch.Tensor'"],
)
def test_type_converts_every_tensor_integer_buffers_included(dst: str) -> None:
    def program(t: ModuleType) -> Any:
        lin = _layer(t)
        weight, mean = lin.weight, lin.mean
        (lin(t.ones(2)) ** 2).sum().backward()
        converted = lin.type(eval(dst, {"t": t}))
        return {
            "same module": converted is lin,
            "same parameter": lin.weight is weight,
            "same buffer": lin.mean is mean,
            "dtypes": [str(getattr(lin, n).dtype) for n in ("weight", "bias", "count", "mean")],
            "grad": lin.weight.grad,
            "plain attribute": lin.note,
            "versions": [lin.weight._version, lin.count._version],
        }

    same(program)


def test_type_torch_tensor_follows_the_default_dtype() -> None:
    def program(t: ModuleType) -> Any:
        previous = t.get_default_dtype()
        t.set_default_dtype(t.float64)
        try:
            return _layer(t).type("torch.Tensor").weight.dtype
        finally:
            t.set_default_dtype(previous)

    same(program)


def test_type_to_an_integer_dtype_refuses_parameters_that_require_grad() -> None:
    def program(t: ModuleType) -> Any:
        net = t.nn.Sequential(t.nn.BatchNorm1d(2), t.nn.Linear(2, 1))
        net[0].requires_grad_(False)
        try:
            net.type(t.int64)
        except RuntimeError as e:
            return str(e), [(n, str(x.dtype)) for n, x in net.state_dict(keep_vars=True).items()]
        return None

    same(program)


@pytest.mark.parametrize(
    ("dst", "raises"),
    [("'float'", "ValueError"), ("'FloatTensor'", "ValueError"), ("3", "TypeError")],
)
def test_type_errors(dst: str, raises: str) -> None:
    same(lambda t: _layer(t).type(eval(dst, {"t": t})), raises=raises)
