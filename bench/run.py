"""Benchmarks: ownership side by side with torch and hand-written numpy, in one process.

Run with ``make bench`` (``python bench/run.py``). Prints three tables:

1. one training step (forward, cross-entropy, backward, SGD update) of an MLP 784-256-10 on a
   batch of 256 in float32, in ownership, torch and numpy (forward plus a manual backward);
2. a chain of 200 tiny ops on a 3-element tensor, forward and backward, ownership against torch;
3. the memory allocated (traced by tracemalloc, which sees numpy's buffers) while creating 1,000
   views of a 64 MiB float32 tensor: ownership must stay under 1 MiB;
4. the doctor's overhead: the guide's MLP training script (``bench/mlp_training.py``) run plain
   and under ``ownership.doctor``, in each engine, as a ratio (goal for torch: under 3x);
5. the site build (``bench/site_build.py``): from scratch with every page executed (goal: a
   minute), then with nothing changed (goal: 3 s); ``--no-site`` leaves it out.

Times are medians of ``time.perf_counter`` over repeats after a warm-up, the engines timed in
turn within each repeat so that load on the machine falls on all of them alike. A row whose engine lacks
something prints the error and the run goes on. The exit status is non-zero when the view-memory
goal fails (or cannot be measured).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from types import ModuleType
from typing import Any

# One thread for every engine (numpy's OpenBLAS here, torch in main()): the comparison is then
# fair and stable on a shared machine, where oversubscribed BLAS threads make timings swing
# tenfold. Set before numpy is imported; an explicit environment setting wins.
_USER_ENV = dict(os.environ)  # the site build runs as `make html` would, with the user's threads
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402 - after the thread settings on purpose

MIB = 1024 * 1024
VIEW_BUDGET_BYTES = 1 * MIB
DOCTOR_GOAL = 3.0  # the doctor's overhead on the torch side, as a ratio to a plain run
MLP_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlp_training.py")


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


def chain_step(engine: ModuleType, n_ops: int) -> Callable[[], float]:
    """Forward and backward through ``n_ops`` tiny ops on a 3-element tensor."""
    x = engine.tensor([0.5, -0.25, 1.0], requires_grad=True)

    def step() -> float:
        x.grad = None
        y = x
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
        y.sum().backward()
        return float(x.grad.sum().item())

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


def doctor_steps(engine: str, steps: int) -> dict[str, Callable[[], Any]]:
    """Run the MLP training script once plain and once under the doctor (in-process, as the
    doctor runs scripts), for ``engine`` (``"torch"`` or ``"ownership"``)."""
    import runpy

    from ownership.doctor import diagnose

    argv = ["--engine", engine, "--steps", str(steps)]

    def plain() -> None:
        saved = sys.argv[:]
        sys.argv = [MLP_SCRIPT, *argv]
        try:
            runpy.run_path(MLP_SCRIPT, run_name="__main__")
        finally:
            sys.argv = saved

    def doctored() -> None:
        result = diagnose(MLP_SCRIPT, argv)
        if result.exit_status or result.findings:
            raise RuntimeError(f"the doctor found {result.codes()} or the script failed")

    return {"plain": plain, "doctor": doctored}


def _import_ownership() -> ModuleType | str:
    try:
        import ownership
    except Exception as exc:  # reported as a row, the bench goes on
        return f"{type(exc).__name__}: {exc}"
    return ownership


def interleaved_medians(
    steps: dict[str, Callable[[], Any]], repeats: int, warmup: int = 2
) -> dict[str, float]:
    """Median seconds per step, timing the steps in turn (round-robin) so that a burst of load
    on the machine falls on every engine alike rather than on whichever ran at the time."""
    for _ in range(warmup):
        for step in steps.values():
            step()
    times: dict[str, list[float]] = {label: [] for label in steps}
    for _ in range(repeats):
        for label, step in steps.items():
            start = time.perf_counter()
            step()
            times[label].append(time.perf_counter() - start)
    return {label: statistics.median(ts) for label, ts in times.items()}


def _timed_rows(
    makers: dict[str, Callable[[], Callable[[], Any]]], repeats: int
) -> dict[str, float | None]:
    """Build each engine's step (a failure becomes an ERROR row), then time the rest together."""
    steps: dict[str, Callable[[], Any]] = {}
    errors: dict[str, str] = {}
    for label, make in makers.items():
        try:
            step = make()
            step()  # a step that fails on its first run is reported, not timed
            steps[label] = step
        except Exception as exc:  # a missing feature is a row, not a crash
            errors[label] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
    medians = interleaved_medians(steps, repeats) if steps else {}
    result: dict[str, float | None] = {}
    for label in makers:
        if label in errors:
            print(f"  {label:<10} ERROR {errors[label]}")
            result[label] = None
        else:
            print(f"  {label:<10} {medians[label] * 1e3:10.3f} ms")
            result[label] = medians[label]
    return result


def _ratio(label: str, a: float | None, b: float | None) -> None:
    shown = "n/a" if a is None or b is None else f"{a / b:.2f}x"
    print(f"  {label:<18} {shown}")


def main(argv: list[str] | None = None) -> int:
    """Run every case, print the tables, and return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--chain", type=int, default=200)
    parser.add_argument("--views", type=int, default=1000)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (numpy: env vars)")
    parser.add_argument("--doctor-steps", type=int, default=30, help="MLP steps under the doctor")
    parser.add_argument("--site", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    ownership = _import_ownership()
    print(
        f"numpy {np.__version__} (OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}),"
        f" torch {torch.__version__} ({torch.get_num_threads()} threads),"
        f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    if isinstance(ownership, str):
        print(f"ownership: cannot import ({ownership})")

    def own(make: Callable[[ModuleType], Callable[[], Any]]) -> Callable[[], Callable[[], Any]]:
        def build() -> Callable[[], Any]:
            if isinstance(ownership, str):
                raise ImportError(ownership)
            return make(ownership)

        return build

    sizes = (784, 256, 10)
    print(f"\n1. MLP {sizes[0]}-{sizes[1]}-{sizes[2]} training step, batch {args.batch}, float32")
    rows = _timed_rows(
        {
            "ownership": own(lambda e: engine_mlp_step(e, args.batch, sizes)),
            "torch": lambda: engine_mlp_step(torch, args.batch, sizes),
            "numpy": lambda: numpy_mlp_step(args.batch, sizes),
        },
        args.repeats,
    )
    _ratio("ownership/torch", rows["ownership"], rows["torch"])
    _ratio("ownership/numpy", rows["ownership"], rows["numpy"])

    print(f"\n2. chain of {args.chain} tiny ops (3 elements), forward + backward")
    rows = _timed_rows(
        {
            "ownership": own(lambda e: chain_step(e, args.chain)),
            "torch": lambda: chain_step(torch, args.chain),
        },
        args.repeats * 2,
    )
    _ratio("ownership/torch", rows["ownership"], rows["torch"])

    print(f"\n3. memory of {args.views} views of a {args.mib} MiB float32 tensor (tracemalloc)")
    print("  (torch allocates in C++, which tracemalloc does not see: its row is for reference)")
    passed = False
    for label, engine in (("ownership", ownership), ("torch", torch)):
        try:
            if isinstance(engine, str):
                raise ImportError(engine)
            views_bytes, clone_bytes = view_memory_bytes(engine, args.views, args.mib)
        except Exception as exc:  # reported, and a failure for ownership
            print(f"  {label:<10} ERROR {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
            continue
        verdict = ""
        if label == "ownership":
            passed = views_bytes < VIEW_BUDGET_BYTES
            verdict = "PASS" if passed else "FAIL"
            verdict += f" (budget {VIEW_BUDGET_BYTES / MIB:.0f} MiB)"
        print(
            f"  {label:<10} views {views_bytes / MIB:8.3f} MiB"
            f" ({views_bytes / max(args.views, 1):.0f} B/view);"
            f" control: one clone() {clone_bytes / MIB:8.3f} MiB  {verdict}"
        )

    print(f"\n4. the doctor on the guide's MLP training script ({args.doctor_steps} steps)")
    for engine in ("torch", "ownership"):
        try:
            times = interleaved_medians(doctor_steps(engine, args.doctor_steps), args.repeats // 2)
        except Exception as exc:  # reported as a row, the bench goes on
            print(f"  {engine:<10} ERROR {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
            continue
        ratio = times["doctor"] / times["plain"]
        verdict = ""
        if engine == "torch":
            verdict = ("PASS" if ratio < DOCTOR_GOAL else "FAIL") + f" (goal {DOCTOR_GOAL:.0f}x)"
        print(
            f"  {engine:<10} plain {times['plain'] * 1e3:9.1f} ms  doctor "
            f"{times['doctor'] * 1e3:9.1f} ms  ratio {ratio:5.2f}x  {verdict}"
        )
    if args.site:
        print("\n5. the site, built with the flags of `make html` into a temporary folder")
        import site_build  # bench/, beside this script

        site_build.report(env=_USER_ENV)
    if not passed:
        print("\nview memory goal: FAIL")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
