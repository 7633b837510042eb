"""Memory formats asked of a copy: ``Tensor.to(memory_format=...)`` and the ``*_like``
factories restride as torch does (channels innermost for rank 4 and 5, torch's rank errors),
and ``to`` returns the tensor itself when its strides already suggest the format."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def _facts(y: Any) -> Any:
    return y, y.stride(), y.is_contiguous(), y.grad_fn


FORMATS = ["channels_last", "channels_last_3d", "contiguous_format", "preserve_format"]
SOURCES = {
    "4-d": lambda t: t.arange(24.0).reshape(1, 2, 3, 4),
    "5-d": lambda t: t.arange(48.0).reshape(1, 2, 3, 4, 2),
    "3-d": lambda t: t.arange(6.0).reshape(1, 2, 3),
    "4-d permuted": lambda t: t.arange(24.0).reshape(1, 3, 4, 2).permute(0, 3, 1, 2),
    "4-d empty": lambda t: t.ones(2, 0, 3, 4),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", SOURCES, ids=list(SOURCES))
def test_to_restrides_in_the_format_asked(source: str, fmt: str) -> None:
    def program(t: ModuleType) -> Any:
        x = SOURCES[source](t).requires_grad_()
        y = x.to(memory_format=getattr(t, fmt))
        z = x.to(t.float64, memory_format=getattr(t, fmt))
        y.sum().backward()
        return _facts(y), y is x, _facts(z), x.grad, x.grad.stride()

    same(program)


def test_to_a_format_already_suggested_is_the_tensor_itself() -> None:
    def program(t: ModuleType) -> Any:
        x = t.arange(24.0).reshape(1, 2, 3, 4).to(memory_format=t.channels_last)
        copied = x.to(memory_format=t.channels_last, copy=True)
        return (
            x.to(memory_format=t.channels_last) is x,
            x.to(memory_format=t.contiguous_format) is x,
            _facts(copied),
            copied.data_ptr() == x.data_ptr(),
        )

    same(program)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("factory", ["zeros_like", "ones_like", "full_like"])
@pytest.mark.parametrize("source", SOURCES, ids=list(SOURCES))
def test_like_factories_lay_out_in_the_format_asked(source: str, factory: str, fmt: str) -> None:
    def program(t: ModuleType) -> Any:
        x = SOURCES[source](t)
        args = (x, 2.5) if factory == "full_like" else (x,)
        y = getattr(t, factory)(*args, memory_format=getattr(t, fmt), device="cpu")
        return y, y.stride()

    same(program)


def test_empty_like_lays_out_in_the_format_asked() -> None:
    def program(t: ModuleType) -> Any:
        x = t.arange(24.0).reshape(1, 2, 3, 4)
        y = t.empty_like(x, memory_format=t.channels_last, device=t.device("cpu"))
        return y.shape, y.stride(), y.dtype  # values uninitialised in torch

    same(program)


CONTIGUITY_SOURCES = {
    **SOURCES,
    "4-d channels last": lambda t: (
        t.arange(24.0).reshape(1, 2, 3, 4).to(memory_format=t.channels_last)
    ),
    "5-d channels last": lambda t: (
        t.arange(48.0).reshape(1, 2, 3, 4, 2).to(memory_format=t.channels_last_3d)
    ),
    "4-d of size-1 dims": lambda t: t.zeros(2, 1, 1, 3),
    "4-d transposed": lambda t: t.arange(24.0).reshape(2, 3, 4, 1).transpose(1, 2),
    "4-d stepped": lambda t: t.arange(96.0).reshape(2, 4, 3, 4)[:, ::2],
    "1-d": lambda t: t.arange(6.0),
    "0-d": lambda t: t.tensor(1.0),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", CONTIGUITY_SOURCES, ids=list(CONTIGUITY_SOURCES))
def test_is_contiguous_asks_of_the_format_given(source: str, fmt: str) -> None:
    """``is_contiguous(memory_format=...)``: row-major for ``contiguous_format`` and
    ``preserve_format``, channels innermost for a channels-last format of the tensor's rank
    (any other rank is not)."""

    def program(t: ModuleType) -> Any:
        x = CONTIGUITY_SOURCES[source](t)
        return eval(f"x.is_contiguous(memory_format=t.{fmt})", {"x": x, "t": t}), x.stride()

    same(program)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("method", ["float", "double", "long", "int", "bool", "cpu"])
@pytest.mark.parametrize("source", SOURCES, ids=list(SOURCES))
def test_a_conversion_lays_out_in_the_format_asked(source: str, method: str, fmt: str) -> None:
    """``float(memory_format=...)``... ``cpu(memory_format=...)`` are ``to``'s: the tensor itself
    when nothing changes, else a copy in the format (torch's rank errors for the others)."""

    def program(t: ModuleType) -> Any:
        x = SOURCES[source](t).requires_grad_()
        y = eval(f"x.{method}(memory_format=t.{fmt})", {"x": x, "t": t})
        return _facts(y), y is x

    same(program)


WRONG_CALLS = [
    "x.float(memory_format=1)",
    "x.cpu(memory_format='channels_last')",
    "x.long(t.contiguous_format)",
    "x.double(memory_format=t.contiguous_format, bogus=1)",
    "x.is_contiguous(memory_format=None)",
    "x.is_contiguous(memory_format=1)",
    "x.is_contiguous(t.channels_last)",
    "x.is_contiguous(bogus=1)",
]


@pytest.mark.parametrize("call", WRONG_CALLS)
def test_a_wrong_memory_format_is_refused_in_torch_words(call: str) -> None:
    def program(t: ModuleType) -> Any:
        return eval(call, {"x": t.ones(1, 2, 3, 4), "t": t})

    same(program)


def test_a_conversion_without_a_format_is_the_tensor_itself() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(1, 2, 3, 4).to(memory_format=t.channels_last)
        return (
            x.float(memory_format=None) is x,
            x.cpu(memory_format=t.preserve_format) is x,
            x.cpu(memory_format=t.channels_last) is x,
            _facts(x.float(memory_format=t.contiguous_format)),
        )

    same(program)
