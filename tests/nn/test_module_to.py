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


TO_CALLS = {
    "copy": (("cpu",), {"copy": True}),
    "copy false": (("cpu",), {"copy": False}),
    "positional copy": (("cpu", "float64", False, True), {}),
    "dtype then copy": (("float64",), {"copy": True}),
    "accelerator index": ((0,), {}),
    "negative index": ((-1,), {}),
    "bad keyword": ((), {"foo": 1}),
    "dtype name as device": (("'float64'",), {}),
    "device string": (("'cpu:x'",), {}),
    "unknown device": (("'gpu'",), {}),
    "three positionals": (("cpu", "float64", "float64"), {}),
    "non-blocking": (("cpu",), {"non_blocking": True}),
    "cpu index": (("'cpu:0'",), {"dtype": "float64"}),
    "a tensor": (("tensor64",), {}),
    "channels last": ((), {"memory_format": "channels_last"}),
}


def _to_arg(t: ModuleType, arg: Any) -> Any:
    """A spelled argument of TO_CALLS under engine ``t``."""
    if arg == "tensor64":
        return t.ones(1, dtype=t.float64)
    if arg in ("float64", "channels_last"):
        return getattr(t, arg)
    if isinstance(arg, str) and arg.startswith("'"):
        return arg[1:-1]
    return arg


@pytest.mark.parametrize("case", TO_CALLS, ids=list(TO_CALLS))
def test_to_reads_its_arguments_as_torch_and_refuses_copy(case: str) -> None:
    args, kwargs = TO_CALLS[case]

    def program(t: ModuleType) -> Any:
        lin = _layer(t)
        weight = lin.weight
        out = lin.to(
            *(_to_arg(t, a) for a in args), **{k: _to_arg(t, v) for k, v in kwargs.items()}
        )
        return out is lin, lin.weight is weight, lin.weight, lin.mean, lin.count

    same(program)


def test_memory_format_restrides_the_4d_and_5d_tensors_only() -> None:
    def program(t: ModuleType) -> Any:
        m = t.nn.Module()
        m.w4 = t.nn.Parameter(t.arange(24.0).reshape(1, 2, 3, 4))
        m.register_buffer("b5", t.arange(48.0).reshape(1, 2, 3, 4, 2))
        m.register_buffer("i4", t.arange(24).reshape(1, 2, 3, 4))
        m.register_buffer("flat", t.ones(3))
        m.to(memory_format=t.channels_last)
        m.to(t.float64, memory_format=t.channels_last_3d)  # rank 5 only; rank 4 is refused
        return [(name, v, v.stride()) for name, v in [*m.named_parameters(), *m.named_buffers()]]

    same(program)
