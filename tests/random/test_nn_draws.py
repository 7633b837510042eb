"""Seeded layers, initialisers and dropout draw torch's values: ``nn.Linear(2, 2)`` after a seed
prints torch's weights, every ``nn.init`` function fills torch's values, a dropout zeroes
torch's elements, and a seeded training step with dropout follows torch's."""

from __future__ import annotations

import math
from typing import Any

import pytest

from support.bits import bits
from support.differential import same


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_a_seeded_linear_prints_torchs_weights(seed: int) -> None:
    def program(t: Any) -> Any:
        t.manual_seed(seed)
        layer = t.nn.Linear(2, 2)
        return repr(layer.weight), repr(layer.bias), bits(layer.weight, layer.bias)

    same(program)


def test_seeded_models_start_from_torchs_parameters() -> None:
    def program(t: Any) -> Any:
        t.manual_seed(0)
        model = t.nn.Sequential(t.nn.Linear(784, 256), t.nn.ReLU(), t.nn.Linear(256, 10))
        deep = t.nn.Linear(3, 5, bias=False).double()
        return bits(*model.parameters(), *deep.parameters())

    same(program)


INITS: dict[str, Any] = {
    "uniform_": lambda init, w: init.uniform_(w, -0.5, 0.5),
    "normal_": lambda init, w: init.normal_(w, 0.0, 0.02),
    "kaiming_uniform_": lambda init, w: init.kaiming_uniform_(w, a=math.sqrt(5)),
    "kaiming_uniform_ relu fan_out": lambda init, w: init.kaiming_uniform_(
        w, mode="fan_out", nonlinearity="relu"
    ),
    "kaiming_normal_": lambda init, w: init.kaiming_normal_(w),
    "kaiming_normal_ relu fan_out": lambda init, w: init.kaiming_normal_(
        w, mode="fan_out", nonlinearity="relu"
    ),
    "xavier_uniform_": lambda init, w: init.xavier_uniform_(w),
    "xavier_uniform_ tanh gain": lambda init, w: init.xavier_uniform_(
        w, gain=init.calculate_gain("tanh")
    ),
    "xavier_normal_": lambda init, w: init.xavier_normal_(w, gain=2.0),
}


@pytest.mark.parametrize("name", INITS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 2), (3, 5), (4, 4), (7, 3, 2), (256, 784)])
def test_initialisers(name: str, dtype: str, shape: tuple[int, ...]) -> None:
    def program(t: Any) -> Any:
        t.manual_seed(17)
        w = t.nn.Parameter(t.zeros(*shape, dtype=getattr(t, dtype)))
        INITS[name](t.nn.init, w)
        return bits(w), w._version

    same(program)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [1, 7, 16, 17, 100, 1000])
def test_dropout_masks(p: float, dtype: str, size: int) -> None:
    def program(t: Any) -> Any:
        t.manual_seed(3)
        x = t.arange(1.0, size + 1.0, dtype=getattr(t, dtype)).requires_grad_()
        y = t.nn.functional.dropout(x, p)
        module = t.nn.Dropout(p)(x * 1)
        w = x * 1
        t.nn.functional.dropout(w, p, inplace=True)
        layer = t.nn.Dropout(p, inplace=True)
        v = x * 1
        layer(v)
        return bits(y, y.grad_fn._saved_other, module, w, v)

    same(program)


def test_dropout_of_a_transposed_input() -> None:
    def program(t: Any) -> Any:
        t.manual_seed(4)
        x = t.randn(6, 5).t()
        return bits(t.nn.functional.dropout(x, 0.3), t.nn.functional.dropout(x, 0.3).t())

    same(program)


def test_a_seeded_training_step_with_dropout() -> None:
    """The draws (weights, data, masks) are torch's exactly; the step's arithmetic agrees to
    the usual tolerance (a matrix product sums in its own order)."""

    def program(t: Any) -> Any:
        t.manual_seed(0)
        model = t.nn.Sequential(
            t.nn.Linear(4, 16), t.nn.ReLU(), t.nn.Dropout(0.5), t.nn.Linear(16, 3)
        )
        start = bits(*model.parameters())
        optimizer = t.optim.SGD(model.parameters(), lr=0.1)
        x, target = t.randn(8, 4), t.randint(0, 3, (8,))
        masks = []
        for _ in range(3):
            optimizer.zero_grad()
            hidden = model[1](model[0](x))
            dropped = model[2](hidden)
            masks.append(bits(dropped == 0))
            loss = t.nn.functional.cross_entropy(model[3](dropped), target)
            loss.backward()
            optimizer.step()
        return start, bits(x, target), masks, loss, list(model.parameters())

    same(program)
