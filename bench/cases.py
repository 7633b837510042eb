"""The programs ``bench/run.py`` times: each builds a step in one engine (torch or ownership, or
hand-written numpy for the floor) from the same data, so that the engines run the same program.

Every ``*_step`` function returns a callable that runs one step; the chain of 10,000 ops returns
one whose step reports its forward and backward seconds separately.
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

MIB = 1024 * 1024
CLOCK: list[Callable[[], float]] = [time.process_time]
"""The clock every timing reads (``bench/run.py --clock`` chooses it): by default the CPU time
of this process, which a busy shared machine inflates far less than the wall clock."""


def mlp_data(
    batch: int, sizes: tuple[int, int, int], seed: int = 0
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Weights (w1, b1, w2, b2), inputs and integer targets, float32, shared by every engine."""
    d_in, d_hidden, d_out = sizes
    rng = np.random.default_rng(seed)
    weights = [
        (rng.standard_normal((d_in, d_hidden)) / np.sqrt(d_in)).astype(np.float32),
        np.zeros(d_hidden, dtype=np.float32),
        (rng.standard_normal((d_hidden, d_out)) / np.sqrt(d_hidden)).astype(np.float32),
        np.zeros(d_out, dtype=np.float32),
    ]
    x = rng.standard_normal((batch, d_in)).astype(np.float32)
    y = rng.integers(0, d_out, size=batch).astype(np.int64)
    return weights, x, y


def engine_mlp_step(
    engine: ModuleType, batch: int, sizes: tuple[int, int, int], lr: float = 0.1
) -> Callable[[], float]:
    """A training step of the MLP in ``engine`` (torch or ownership); returns the loss."""
    weights, x_np, y_np = mlp_data(batch, sizes)
    params = [engine.tensor(w, requires_grad=True) for w in weights]
    x = engine.tensor(x_np)
    y = engine.tensor(y_np)
    functional = engine.nn.functional

    def step() -> float:
        w1, b1, w2, b2 = params
        for p in params:
            p.grad = None
        hidden = functional.relu(x @ w1 + b1)
        loss = functional.cross_entropy(hidden @ w2 + b2, y)
        loss.backward()
        with engine.no_grad():
            for p in params:
                p -= lr * p.grad
        return float(loss.item())

    return step


def numpy_mlp_step(batch: int, sizes: tuple[int, int, int], lr: float = 0.1) -> Callable[[], float]:
    """The same training step in plain numpy: forward, then the backward written by hand."""
    (w1, b1, w2, b2), x, y = mlp_data(batch, sizes)
    rows = np.arange(batch)

    def step() -> float:
        pre = x @ w1 + b1
        hidden = np.maximum(pre, 0)
        logits = hidden @ w2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -log_probs[rows, y].mean()
        d_logits = np.exp(log_probs)
        d_logits[rows, y] -= 1
        d_logits /= batch
        d_w2 = hidden.T @ d_logits
        d_b2 = d_logits.sum(axis=0)
        d_pre = (d_logits @ w2.T) * (pre > 0)
        d_w1 = x.T @ d_pre
        d_b1 = d_pre.sum(axis=0)
        for p, g in ((w1, d_w1), (b1, d_b1), (w2, d_w2), (b2, d_b2)):
            p -= lr * g
        return float(loss)

    return step


def minimal_mlp_step(
    batch: int, sizes: tuple[int, int, int], lr: float = 0.1
) -> Callable[[], float]:
    """The same training step in ``minimal_engine``: torch's graph, recorded and run in Python
    with nothing else (the floor of any Python engine that records one)."""
    from minimal_engine import Value  # beside this file, as ``cases`` is beside ``run.py``

    weights, x_np, y = mlp_data(batch, sizes)
    params = [Value(w) for w in weights]
    x = Value(x_np, wants_grad=False)
    rows = np.arange(batch)

    def step() -> float:
        w1, b1, w2, b2 = params
        for p in params:
            p.grad = None
        hidden = (x @ w1 + b1).relu()
        loss = (hidden @ w2 + b2).log_softmax().nll_loss(y, rows)
        loss.backward()
        for p in params:
            p.data -= lr * p.grad
        return float(loss.data)

    return step


def tiny_chain(y: Any, n_ops: int) -> Any:
    """``n_ops`` tiny ops in turn: multiply, add, tanh, subtract."""
    for i in range(n_ops):
        kind = i % 4
        if kind == 0:
            y = y * 1.01
        elif kind == 1:
            y = y + 0.1
        elif kind == 2:
            y = y.tanh()
        else:
            y = y - 0.05
    return y


def chain_step(engine: ModuleType, n_ops: int) -> Callable[[], float]:
    """Forward and backward through ``n_ops`` tiny ops on a 3-element tensor."""
    x = engine.tensor([0.5, -0.25, 1.0], requires_grad=True)

    def step() -> float:
        x.grad = None
        tiny_chain(x, n_ops).sum().backward()
        return float(x.grad.sum().item())

    return step


def split_chain_step(
    engine: ModuleType, n_ops: int
) -> Callable[[], tuple[tuple[str, float], tuple[str, float]]]:
    """The chain of tiny ops, its forward and its backward timed apart: the step returns
    ``(("forward", seconds), ("backward", seconds))``."""
    x = engine.tensor([0.5, -0.25, 1.0], requires_grad=True)

    def step() -> tuple[tuple[str, float], tuple[str, float]]:
        x.grad = None
        start = CLOCK[0]()
        loss = tiny_chain(x, n_ops).sum()
        middle = CLOCK[0]()
        loss.backward()
        end = CLOCK[0]()
        return ("forward", middle - start), ("backward", end - middle)

    return step


def view_chain_step(engine: ModuleType, n_views: int) -> Callable[[], Any]:
    """``n_views`` ``view`` calls, each of the previous one's result, on a leaf that requires
    grad (each view is then recorded in the graph, as in a training program)."""
    x = engine.zeros(12, requires_grad=True)

    def step() -> Any:
        y = x
        for _ in range(n_views // 2):
            y = y.view(4, 3)
            y = y.view(12)
        return y

    return step


def micrograd_step(engine: ModuleType, points: int = 100) -> Callable[[], float]:
    """One training step of micrograd's demo, in ``engine``: an MLP 2-16-16-1 (``nn.Linear`` and
    ReLU) on ``points`` 2-D points, the max-margin loss plus an L2 penalty, ``optim.SGD``."""
    rng = np.random.default_rng(0)
    x = engine.tensor(rng.standard_normal((points, 2)).astype(np.float32))
    y = engine.tensor(rng.choice([-1.0, 1.0], size=(points, 1)).astype(np.float32))
    nn = engine.nn
    model = nn.Sequential(
        nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1)
    )
    params = list(model.parameters())
    with engine.no_grad():  # the same weights in every engine (their generators differ)
        for p in params:
            p.copy_(engine.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    optimizer = engine.optim.SGD(params, lr=0.05)

    def step() -> float:
        optimizer.zero_grad()
        scores = model(x)
        data_loss = (1 - y * scores).relu().mean()
        loss = data_loss + 1e-4 * sum((p * p).sum() for p in params)
        loss.backward()
        optimizer.step()
        return float(loss.item())

    return step


def make_views(base: Any, n_views: int) -> list[Any]:
    """``n_views`` views of a 1-D ``base`` of a length divisible by 64, of several kinds."""
    side = base.shape[0] // 64
    grid = base.view(64, side)
    makers = [
        lambda i: base.view(64, side),
        lambda i: grid[i % 64],
        lambda i: grid.t(),
        lambda i: grid[:, i % side],
        lambda i: grid.narrow(0, i % 64, 1),
        lambda i: base[i::2],
        lambda i: grid.unsqueeze(0),
        lambda i: base.detach(),
    ]
    return [makers[i % len(makers)](i) for i in range(n_views)]


def view_memory_bytes(engine: ModuleType, n_views: int, mib: int) -> tuple[int, int]:
    """Peak bytes traced while making ``n_views`` views of an ``mib`` MiB float32 tensor.

    Returns ``(views_bytes, clone_bytes)``: the second is one ``clone()`` of the same tensor, a
    control showing that the measurement does see a copy.
    """
    base = engine.zeros(mib * MIB // 4)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        views = make_views(base, n_views)
        views_bytes = tracemalloc.get_traced_memory()[1] - before
        del views
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        copy = base.clone()
        clone_bytes = tracemalloc.get_traced_memory()[1] - before
        del copy
    finally:
        tracemalloc.stop()
    return views_bytes, clone_bytes


def training_growth_bytes(engine: ModuleType, steps: int, settle: int = 20) -> tuple[int, int]:
    """Memory kept by ``steps`` training steps of the guide's MLP (64-32-10, SGD, 1,347 rows).

    Returns ``(growth, one_graph)``: the bytes still allocated after the last step less those
    after step ``settle`` (traced by tracemalloc, after a collection), and, as a control that
    the measurement sees what a leak would keep, the bytes one step's graph holds while alive.
    """
    rng = np.random.default_rng(0)
    x = engine.tensor(rng.standard_normal((1347, 64)).astype(np.float32))
    y = engine.tensor(rng.integers(0, 10, size=1347).astype(np.int64))
    engine.manual_seed(0)
    nn = engine.nn
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    optimizer = engine.optim.SGD(model.parameters(), lr=0.1)

    def step() -> Any:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    gc.collect()
    tracemalloc.start()
    try:
        for i in range(steps):
            step()
            if i + 1 == settle:
                gc.collect()
                settled = tracemalloc.get_traced_memory()[0]
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - settled
        before = tracemalloc.get_traced_memory()[0]
        optimizer.zero_grad()
        alive = nn.functional.cross_entropy(model(x), y)
        one_graph = tracemalloc.get_traced_memory()[0] - before
        del alive
    finally:
        tracemalloc.stop()
    return growth, one_graph


def doctor_steps(script: str, engine: str, steps: int) -> dict[str, Callable[[], Any]]:
    """Run the MLP training ``script`` once plain and once under the doctor (in-process, as the
    doctor runs scripts), for ``engine`` (``"torch"`` or ``"ownership"``)."""
    import runpy

    from ownership.doctor import diagnose

    argv = ["--engine", engine, "--steps", str(steps)]

    def plain() -> None:
        saved = sys.argv[:]
        sys.argv = [script, *argv]
        try:
            runpy.run_path(script, run_name="__main__")
        finally:
            sys.argv = saved

    def doctored() -> None:
        result = diagnose(script, argv)
        if result.exit_status or result.findings:
            raise RuntimeError(f"the doctor found {result.codes()} or the script failed")

    return {"plain": plain, "doctor": doctored}


def random_cases(batch: int) -> dict[str, Callable[[ModuleType], Callable[[], Any]]]:
    """Seeded draws, which torch makes in C++ and ownership in numpy (its Mersenne Twister a
    block of 624 words at a time, the samplers over whole arrays): a layer's initialisation, a
    tensor of normals, a dropout mask on a batch of ``batch`` x 256 and a shuffle of 60,000."""

    def linear(engine: ModuleType) -> Callable[[], Any]:
        return lambda: engine.nn.Linear(784, 256)

    def normals(engine: ModuleType) -> Callable[[], Any]:
        return lambda: engine.randn(784, 256)

    def dropout(engine: ModuleType) -> Callable[[], Any]:
        x = engine.ones(batch, 256)
        return lambda: engine.nn.functional.dropout(x, 0.5)

    def shuffle(engine: ModuleType) -> Callable[[], Any]:
        return lambda: engine.randperm(60_000)

    return {
        "nn.Linear(784, 256)": linear,
        "randn(784, 256)": normals,
        f"dropout mask {batch}x256": dropout,
        "randperm(60000)": shuffle,
    }
