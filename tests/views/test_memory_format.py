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
