"""ownership.nn.init: in place, under no_grad, one version bump, torch's bounds and errors."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from support.differential import _ownership, same


@pytest.mark.parametrize(
    "fill",
    [
        lambda t, w: t.nn.init.zeros_(w),
        lambda t, w: t.nn.init.ones_(w),
        lambda t, w: t.nn.init.constant_(w, 0.25),
    ],
    ids=["zeros_", "ones_", "constant_"],
)
def test_fills_in_place_under_no_grad_on_a_leaf_that_requires_grad(fill: Any) -> None:
    def program(t: ModuleType) -> Any:
        w = t.nn.Parameter(t.tensor([[1.0, 2.0], [3.0, 4.0]]))
        out = fill(t, w)
        return out is w, w, w._version, w.is_leaf, w.grad_fn

    same(program)


@pytest.mark.parametrize(
    "init",
    [
        lambda t, w: t.nn.init.uniform_(w, -0.5, 0.5),
        lambda t, w: t.nn.init.normal_(w, 0.0, 2.0),
        lambda t, w: t.nn.init.kaiming_uniform_(w, a=math.sqrt(5)),
        lambda t, w: t.nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"),
        lambda t, w: t.nn.init.xavier_uniform_(w, gain=2.0),
    ],
    ids=["uniform_", "normal_", "kaiming_uniform_", "kaiming_fan_out", "xavier_uniform_"],
)
def test_random_inits_return_their_argument_and_bump_once(init: Any) -> None:
    def program(t: ModuleType) -> Any:
        w = t.nn.Parameter(t.zeros(20, 30))
        out = init(t, w)
        return out is w, w._version, w.requires_grad, w.is_leaf, w.grad_fn, w.shape

    same(program)


BOUNDS = {
    "uniform_": (lambda init, w: init.uniform_(w, -0.5, 0.5), 0.5),
    "kaiming_uniform_": (
        lambda init, w: init.kaiming_uniform_(w, a=math.sqrt(5)),
        1 / math.sqrt(300),
    ),
    "kaiming_relu_fan_out": (
        lambda init, w: init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"),
        math.sqrt(2) * math.sqrt(3 / 200),
    ),
    "xavier_uniform_": (
        lambda init, w: init.xavier_uniform_(w, gain=2.0),
        2 * math.sqrt(6 / (300 + 200)),
    ),
}


@pytest.mark.parametrize("name", list(BOUNDS))
def test_uniform_inits_fill_their_whole_bound(name: str) -> None:
    own = _ownership()
    own.manual_seed(3)
    init, bound = BOUNDS[name]
    w = own.zeros(200, 300)  # fan_in 300, fan_out 200
    init(own.nn.init, w)
    values = w.numpy()
    assert abs(values).max() <= bound
    assert abs(values).max() > 0.99 * bound
    assert abs(values.mean()) < 0.02 * bound
    assert abs(values.std() - bound / math.sqrt(3)) < 0.02 * bound


def test_normal_statistics() -> None:
    own = _ownership()
    own.manual_seed(4)
    values = own.nn.init.normal_(own.zeros(100_000), mean=1.0, std=3.0).numpy()
    assert abs(values.mean() - 1.0) < 0.05 and abs(values.std() - 3.0) < 0.05


def test_reproducible_with_manual_seed() -> None:
    own = _ownership()
    draws = []
    for _ in range(2):
        own.manual_seed(11)
        draws.append(own.nn.init.uniform_(own.zeros(5)).numpy().copy())
    np.testing.assert_array_equal(*draws)


def test_fan_in_and_fan_out() -> None:
    def program(t: ModuleType) -> Any:
        f = t.nn.init._calculate_fan_in_and_fan_out
        return f(t.zeros(4, 3)), f(t.zeros(4, 3, 5)), f(t.zeros(2, 3, 2, 2))

    assert same(program) == ((3, 4), (15, 20), (12, 8))


@pytest.mark.parametrize(
    "nonlinearity",
    ["linear", "sigmoid", "tanh", "relu", "leaky_relu", "selu", "conv2d"],
)
def test_calculate_gain(nonlinearity: str) -> None:
    same(lambda t: t.nn.init.calculate_gain(nonlinearity))


ERRORS = {
    "fan of a vector": lambda t: t.nn.init._calculate_fan_in_and_fan_out(t.zeros(3)),
    "xavier of a vector": lambda t: t.nn.init.xavier_uniform_(t.zeros(3)),
    "kaiming mode": lambda t: t.nn.init.kaiming_uniform_(t.zeros(3, 3), mode="x"),
    "gain": lambda t: t.nn.init.calculate_gain("foo"),
    "leaky slope": lambda t: t.nn.init.calculate_gain("leaky_relu", "a"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name: str) -> None:
    same(ERRORS[name])


def test_leaky_relu_gain_with_slope() -> None:
    same(lambda t: t.nn.init.calculate_gain("leaky_relu", math.sqrt(5)))
