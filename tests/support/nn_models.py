"""Model builders shared by the nn, optim and audit tests: each takes the engine module.

The same builder run with ``torch`` and with ``ownership`` gives the same architecture;
:func:`load_weights` then gives both the same weights, so their results can be compared.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np


def load_weights(model: Any, t: ModuleType, seed: int = 0) -> Any:
    """Give ``model`` deterministic float32 weights (the same for either engine); return it."""
    rng = np.random.default_rng(seed)
    state = {}
    for name, value in model.state_dict().items():
        if name.endswith("num_batches_tracked"):
            state[name] = t.tensor(0)
        else:
            array = rng.standard_normal(tuple(value.shape)).astype(np.float32)
            state[name] = t.tensor(array.tolist())
    model.load_state_dict(state)
    return model


def mlp(t: ModuleType, seed: int = 0) -> Any:
    """Linear(3, 4) -> ReLU -> Linear(4, 2), with seeded weights."""
    nn = t.nn
    return load_weights(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), t, seed)


def tied(t: ModuleType) -> Any:
    """An autoencoder whose decoder uses the encoder's weight (the same Parameter)."""

    class Tied(t.nn.Module):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.encoder = t.nn.Linear(3, 3, bias=False)
            self.decoder = t.nn.Linear(3, 3)
            self.decoder.weight = self.encoder.weight

        def forward(self, x: Any) -> Any:
            return self.decoder(t.tanh(self.encoder(x)))

    return load_weights(Tied(), t, 1)


def nested(t: ModuleType) -> Any:
    """Modules inside modules, with parameters, buffers and a plain tensor attribute."""
    nn = t.nn

    class Block(nn.Module):  # type: ignore[name-defined,misc]
        def __init__(self, n_in: int, n_out: int) -> None:
            super().__init__()
            self.scale = nn.Parameter(t.ones(n_out))
            self.linear = nn.Linear(n_in, n_out)
            self.register_buffer("calls", t.zeros((), dtype=t.int64))
            self.register_buffer("cache", t.zeros(n_out), persistent=False)
            self.last = t.zeros(n_out)

        def forward(self, x: Any) -> Any:
            return self.linear(x) * self.scale

    class Net(nn.Module):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.first = Block(3, 4)
            self.act = nn.Tanh()
            self.body = nn.Sequential(Block(4, 4), nn.ReLU(), nn.Linear(4, 2))
            self.head_bias = nn.Parameter(t.zeros(2))

        def forward(self, x: Any) -> Any:
            return self.body(self.act(self.first(x))) + self.head_bias

    return load_weights(Net(), t, 2)


# Linear and BatchNorm1d with fixed weights, deterministic inputs and the graph below a node:
# the fused-op tests (tests/nn/test_fused_ops*.py) build the same layers under both engines.
W = [[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]]  # make_linear's weight
B = [0.1, -0.2]  # and bias
SHAPES = [(3,), (4, 3), (2, 2, 3)]


def graph(fn: Any) -> Any:
    """The graph below ``fn`` as nested ``(name, input_nr, children)`` (``None`` for no edge)."""
    if fn is None:
        return None
    return [
        None if f is None else (f.name(), nr, graph(f) if f.next_functions else [])
        for f, nr in fn.next_functions
    ]


def data(t: ModuleType, shape: tuple[int, ...], requires_grad: bool = True) -> Any:
    """Deterministic input of ``shape`` (float32), a leaf."""
    values = np.linspace(-2.0, 2.5, int(np.prod(shape)), dtype=np.float32) ** 3 / 4
    return t.tensor(values.reshape(shape).tolist(), requires_grad=requires_grad)


def make_linear(t: ModuleType, bias: bool) -> Any:
    """``Linear(3, 2)`` with weight :data:`W` (and bias :data:`B`)."""
    lin = t.nn.Linear(3, 2, bias=bias)
    with t.no_grad():
        lin.weight.copy_(t.tensor(W))
        if bias:
            lin.bias.copy_(t.tensor(B))
    return lin


def make_bn(t: ModuleType, affine: bool, track: bool = True, c: int = 3) -> Any:
    """``BatchNorm1d(c)`` with fixed affine parameters and running statistics."""
    bn = t.nn.BatchNorm1d(c, affine=affine, track_running_stats=track)
    with t.no_grad():
        if affine:
            bn.weight.copy_(t.tensor([1.5, -0.5, 2.0][:c]))
            bn.bias.copy_(t.tensor([0.1, 0.2, -0.3][:c]))
        if track:
            bn.running_mean.copy_(t.tensor([0.2, -0.1, 0.4][:c]))
            bn.running_var.copy_(t.tensor([1.5, 0.5, 2.0][:c]))
    return bn
