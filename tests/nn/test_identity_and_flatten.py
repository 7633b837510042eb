"""nn.Identity and nn.Flatten: layers that own nothing; Identity returns its input, Flatten a view."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest

from support.differential import grad_of, same


def test_identity_returns_its_input_itself_and_takes_any_arguments() -> None:
    def program(t: ModuleType) -> Any:
        layer = t.nn.Identity(54, unused="argument", dropout=0.1)
        x = t.ones(2, 3, requires_grad=True)
        y = layer(x)
        return (
            y is x,
            repr(layer),
            list(layer.state_dict()),
            list(layer.parameters()),
            layer(None),
            layer("anything"),
        )

    same(program)


def test_identity_in_a_model_passes_the_graph_on_untouched() -> None:
    def program(t: ModuleType) -> Any:
        model = t.nn.Sequential(t.nn.Identity(), t.nn.Tanh(), t.nn.Identity())
        x = t.tensor([[0.5, -1.0]], requires_grad=True)
        y = model(x)
        y.sum().backward()
        return repr(model), y, y.grad_fn, grad_of(x)

    same(program)


@pytest.mark.parametrize(
    ("dims", "shape"),
    [
        ((), (2, 3, 4)),
        ((0,), (2, 3, 4)),
        ((0, 1), (2, 3, 4)),
        ((1, -2), (2, 3, 4, 5)),
        ((-3, -1), (2, 3, 4)),
        ((0, 0), ()),
        ((0, -1), (3, 0, 2)),
    ],
)
def test_flatten_merges_dims_as_a_view_sharing_the_version_counter(
    dims: tuple[int, ...], shape: tuple[int, ...]
) -> None:
    def program(t: ModuleType) -> Any:
        layer = t.nn.Flatten(*dims)
        x = t.arange(float(math.prod(shape))).reshape(shape).requires_grad_()
        y = layer(x)
        z = y * 2
        z.sum().backward()
        return (
            repr(layer),
            y,
            y.grad_fn,
            y._base is x,
            y.data_ptr() == x.data_ptr(),
            grad_of(x),
        )

    same(program)


def test_flatten_of_a_non_contiguous_input_copies() -> None:
    def program(t: ModuleType) -> Any:
        x = t.arange(24.0).reshape(2, 3, 4).transpose(1, 2)
        y = t.nn.Flatten()(x)
        return y, y.is_contiguous(), y.data_ptr() == x.data_ptr(), y._base is None

    same(program)


def test_an_in_place_write_through_flatten_bumps_the_input_version() -> None:
    def program(t: ModuleType) -> Any:
        x = t.zeros(2, 2, 2)
        t.nn.Flatten()(x).add_(1)
        return x, x._version

    same(program)


@pytest.mark.parametrize(
    ("dims", "shape", "raises"),
    [
        ((3,), (2, 3, 4), "IndexError"),
        ((0, -4), (2, 3, 4), "IndexError"),
        ((2, 1), (2, 3, 4), "RuntimeError"),
        ((), (2,), "IndexError"),
    ],
)
def test_flatten_errors(dims: tuple[int, ...], shape: tuple[int, ...], raises: str) -> None:
    same(lambda t: t.nn.Flatten(*dims)(t.zeros(shape)), raises=raises)
