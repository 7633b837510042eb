"""The grader's inputs: seeded module trees (collect) and seeded models and batches (sgd).

Everything is built with the engine it is given (``torch`` or ``ownership``; the grader imports
torch lazily, only when it grades with torch), from a seed: the same seed gives the same
structure and the same values in both engines. Values come from numpy's seeded generator, so
every parameter and buffer holds distinct values (a copy is recognised by its values).

Each collect tree holds every case a wrong collection trips on: parameters two and three
modules deep; a block whose own Parameter (``gain``) is registered before its children; a
Parameter with another name than weight/bias (``scale``) beside a *buffer* named ``weight``;
BatchNorm's running statistics and a counter buffer; a Linear without bias (its ``bias`` is
registered as ``None``) and a frozen weight (``requires_grad=False``, still a parameter); a
weight tied between two layers; and, for odd seeds, one Linear registered twice (a shared
module). The last tree is a block on its own: a root with a Parameter of its own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SgdCase", "collect_trees", "fill", "sgd_cases"]


def fill(engine: Any, module: Any, seed: int) -> None:
    """Overwrite every floating parameter and buffer of ``module`` with seeded, distinct values."""
    rng = np.random.default_rng(seed)
    with engine.no_grad():
        tensors = [*module.parameters(), *module.buffers()]
        for tensor in tensors:
            if tensor.is_floating_point():
                values = rng.uniform(-1.0, 1.0, size=tuple(tensor.shape)).astype(np.float32)
                tensor.copy_(engine.tensor(values))


def _classes(engine: Any) -> tuple[type, type, type]:
    """The tree's custom modules, subclassing ``engine.nn.Module``."""
    nn = engine.nn

    class Block(nn.Module):  # type: ignore[name-defined,misc]
        """Own parameter first, then children two levels deep, and a counter buffer."""

        def __init__(self, n: int) -> None:
            super().__init__()
            self.gain = nn.Parameter(engine.ones(n))
            self.inner = nn.Sequential(nn.Linear(n, n), nn.Tanh(), nn.Linear(n, n, bias=False))
            self.inner[2].weight.requires_grad_(False)  # frozen: still a parameter
            self.register_buffer("count", engine.zeros((), dtype=engine.int64))

    class Reweight(nn.Module):  # type: ignore[name-defined,misc]
        """A buffer named ``weight`` (fixed class weights) and a Parameter named ``scale``."""

        def __init__(self, n: int) -> None:
            super().__init__()
            self.register_buffer("weight", engine.ones(n))
            self.scale = nn.Parameter(engine.ones(n))

    class Tied(nn.Module):  # type: ignore[name-defined,misc]
        """An encoder and a decoder sharing one weight (weight tying)."""

        def __init__(self, n: int) -> None:
            super().__init__()
            self.encoder = nn.Linear(n, n)
            self.decoder = nn.Linear(n, n)
            self.decoder.weight = self.encoder.weight

    return Block, Reweight, Tied


def collect_trees(engine: Any, seed: int, count: int = 3) -> list[Any]:
    """``count`` seeded module trees, after the unit's own small network."""
    nn = engine.nn
    small = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    fill(engine, small, seed)
    trees = [small]
    block, reweight, tied = _classes(engine)
    for k in range(count):
        rng = random.Random(seed * 1000 + k)
        n = rng.randint(2, 4)
        parts = [block(n), nn.BatchNorm1d(n), reweight(n), tied(n)]
        rng.shuffle(parts)
        if rng.random() < 0.5:  # one more level of nesting around two of the parts
            parts = [parts[0], nn.Sequential(parts[1], nn.ReLU(), parts[2]), parts[3]]
        shared = nn.Linear(n, n)
        layers = [nn.Linear(n, n), *parts, nn.Linear(n, rng.randint(1, 3))]
        if (seed + k) % 2 == 1:
            layers.insert(2, shared)
            layers.insert(len(layers) - 1, shared)
        tree = nn.Sequential(*layers)
        fill(engine, tree, seed * 1000 + k)
        trees.append(tree)
    root = block(3)  # a model with parameters of its own, registered before its children
    fill(engine, root, seed * 1000 + count)
    return [*trees, root]


@dataclass
class SgdCase:
    """One graded step: the model, its loss, a batch, the rate, and planted stale gradients."""

    model: Any
    loss_fn: Any
    x: Any
    y: Any
    lr: float
    stale: bool


def _net_class(engine: Any) -> type:
    nn = engine.nn

    class Net(nn.Module):  # type: ignore[name-defined,misc]
        """An MLP, a constant float buffer used in forward, and a call counter it updates."""

        def __init__(self, d_in: int, hidden: int, d_out: int) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.Tanh(), nn.Linear(hidden, d_out))
            self.register_buffer("scale", engine.ones(d_out))
            self.register_buffer("calls", engine.zeros((), dtype=engine.int64))

        def forward(self, x: Any) -> Any:
            with engine.no_grad():
                self.calls += 1
            return self.body(x) * self.scale

    return Net


def sgd_cases(engine: Any, seed: int, count: int = 3) -> list[SgdCase]:
    """``count`` seeded steps; the first starts from no gradient, the others from stale ones.

    Calling it twice with the same arguments builds equal, independent models (the reference
    step runs on the second copy).
    """
    net = _net_class(engine)
    cases = []
    for k in range(count):
        rng = random.Random(seed * 1000 + k)
        d_in, hidden, d_out, n = (rng.randint(2, 4), rng.randint(3, 5), rng.randint(1, 3), 5)
        model = net(d_in, hidden, d_out)
        fill(engine, model, seed * 1000 + k)
        data = np.random.default_rng(seed * 1000 + k + 500)
        x = engine.tensor(data.normal(size=(n, d_in)).astype(np.float32))
        y = engine.tensor(data.normal(size=(n, d_out)).astype(np.float32))
        stale = k > 0
        if stale:  # the gradients a previous step left behind
            for p in model.parameters():
                p.grad = engine.tensor(data.normal(size=tuple(p.shape)).astype(np.float32))
        lr = rng.choice([0.05, 0.1, 0.2, 0.3])
        cases.append(SgdCase(model, engine.nn.MSELoss(), x, y, lr, stale))
    return cases
