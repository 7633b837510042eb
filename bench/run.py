"""Benchmarks: ownership side by side with torch and hand-written numpy, in one process.

Run with ``make bench`` (``python bench/run.py``). Every row is a ratio measured in this run,
printed with its goal and PASS or FAIL; a table of the engine and memory rows closes the run.
Sections (``--only NAME[,NAME]`` runs some of them; ``--quick`` runs the engine rows with fewer
repeats and leaves out the doctor and the site):

``mlp``        one training step (forward, cross-entropy, backward, SGD update) of an MLP
               784-256-10 on a batch of 256 in float32: ownership against torch and against
               hand-written numpy (forward plus a manual backward), the floor of a numpy engine;
               and, for reference, the same step in ``minimal_engine`` (torch's graph recorded
               and run in Python with nothing else) against that numpy step (the ``tiny``,
               ``chain`` and ``views`` sections show that engine against torch too);
``tiny``       a chain of 200 tiny ops on a 3-element tensor, forward and backward;
``micrograd``  one step of micrograd's demo: an MLP 2-16-16-1 on 100 points, ``nn`` and SGD;
``chain``      a chain of 10,000 tiny ops, its forward and its backward timed apart;
``views``      10,000 ``view`` calls in a chain, each of the previous result;
``contracts``  what each of torch's contracts costs: the forward of a chain of 2,000 tiny ops with
               one contract switched off at a time, then all (``bench/contract_costs.py``);
``random``     seeded draws, torch's values in both engines: ``nn.Linear(784, 256)``, ``randn(784,
               256)``, a dropout mask on a batch x 256 and ``randperm(60000)`` (reference rows:
               torch draws in C++, no goal);
``memory``     the memory (traced by tracemalloc, which sees numpy's buffers) of 1,000 views of a
               64 MiB float32 tensor (goal: under 1 MiB), and what 200 training steps keep
               (goal: no growth; a control shows the bytes one live graph holds);
``doctor``     the guide's MLP training script (``bench/mlp_training.py``) plain and under
               ``ownership.doctor``, in each engine, as a ratio (goal for torch: under 3x);
``site``       the site build (``bench/site_build.py``): from scratch with every page executed
               (goal: a minute), then with nothing changed (goal: 3 s).

Times are medians over repeats after a warm-up, the engines timed in turn within each repeat so
that load on the machine falls on all of them alike; each section prints the load average. The
clock is the process's CPU time (``time.process_time``; every engine runs one thread here, so it
is the time the step computed): on a shared machine the wall clock also counts the time another
process had the core, and swings with the load. ``--clock wall`` uses ``time.perf_counter``.
Before timing, the objects the imports made are frozen out of Python's cyclic garbage collector
(``gc.freeze``): torch's import alone makes about 170,000, which every full collection would
otherwise traverse during the ownership steps (whose graphs are Python objects, torch's are not),
a cost a program that imports one engine does not pay; so are, before each section, the objects
the earlier sections left alive, so that a section measures the same alone or after the others.
Collections still traverse everything the steps create. ``--no-freeze`` measures without it. A row whose engine lacks something prints the error and the run goes
on. The exit status is non-zero when a memory goal fails (or cannot be measured): the speed
rows depend on the machine, the memory rows do not.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

# One thread for every engine (numpy's OpenBLAS here, torch in main()): the comparison is then
# fair and stable on a shared machine, where oversubscribed BLAS threads make timings swing
# tenfold. Set before numpy is imported; an explicit environment setting wins.
_USER_ENV = dict(os.environ)  # the site build runs as `make html` would, with the user's threads
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402 - after the thread settings on purpose

# the cases and the site build live beside this script (on the path when run as a script; also
# when this file is loaded by path, as the bench's smoke test does)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import contract_costs  # noqa: E402
import minimal_engine  # noqa: E402

MIB = cases.MIB
VIEW_BUDGET_BYTES = 1 * MIB
GROWTH_BUDGET_BYTES = 64 * 1024  # kept by 180 steps after the first 20: no leak of a graph
DOCTOR_GOAL = 3.0  # the doctor's overhead on the torch side, as a ratio to a plain run
MLP_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlp_training.py")
MLP_SIZES = (784, 256, 10)
SECTIONS = (
    "mlp",
    "tiny",
    "micrograd",
    "chain",
    "views",
    "contracts",
    "random",
    "memory",
    "doctor",
    "site",
)
CONTRACT_CHAIN = 2_000  # tiny ops in the chain the contracts section times
QUICK_SKIPS = ("doctor", "site")

# The goals of issue 28 (step 5, speed within the rule that each rule is stated once; issue 14's
# 1.10x numpy, 1.00x torch and 1.3x/1.2x chain were reached by restating rules, and are retired):
# each figure is a ratio of medians, at most its goal
GOALS: dict[str, float] = {
    "MLP 784-256-10 step, batch 256: ownership/numpy": 1.25,
    "MLP 784-256-10 step, batch 256: ownership/torch": 1.15,
    "200 tiny ops forward + backward: ownership/torch": 1.3,
    "micrograd MLP 2-16-16-1, 100 points, step: ownership/torch": 1.5,
    "10,000-op chain forward: ownership/torch": 1.5,
    "10,000-op chain backward: ownership/torch": 1.5,
    "10,000 view calls in a chain: ownership/torch": 2.0,
}


class Summary:
    """Every row of the run, with its measured value, its goal and its verdict."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, float]] = []

    def ratio(self, figure: str, a: float | None, b: float | None) -> None:
        """Print and keep the ratio ``a / b`` for ``figure`` against its goal in ``GOALS``."""
        goal = GOALS[figure]
        load = os.getloadavg()[0]
        if a is None or b is None:
            shown, verdict = "n/a", "FAIL"
        else:
            shown = f"{a / b:.2f}x"
            verdict = "PASS" if a / b <= goal else "FAIL"
        print(f"  {figure:<60} {shown:>7}  goal <= {goal:.2f}x  {verdict}")
        self.rows.append((figure, shown, f"<= {goal:.2f}x", verdict, load))

    def reference(self, figure: str, a: float | None, b: float | None) -> None:
        """Print and keep the ratio ``a / b`` for a reference ``figure``, which has no goal."""
        shown = "n/a" if a is None or b is None else f"{a / b:.2f}x"
        print(f"  {figure:<60} {shown:>7}  (reference, no goal)")
        self.rows.append((figure, shown, "reference", "-", os.getloadavg()[0]))

    def memory(self, figure: str, used: int | None, budget: int) -> bool:
        """Keep a memory row; True when ``used`` is measured and under ``budget`` bytes."""
        passed = used is not None and used < budget
        unit, size = ("MiB", MIB) if budget >= MIB else ("KiB", 1024)
        shown = "n/a" if used is None else f"{used / size:.1f} {unit}"
        goal = f"< {budget / size:.0f} {unit}"
        self.rows.append((figure, shown, goal, "PASS" if passed else "FAIL", os.getloadavg()[0]))
        return passed

    def print(self) -> None:
        """The rows as a markdown table (the README's figures come from it)."""
        print("\n| figure | measured | goal | verdict | load |\n|---|---|---|---|---|")
        for figure, shown, goal, verdict, load in self.rows:
            print(f"| {figure} | {shown} | {goal} | {verdict} | {load:.1f} |")


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
    on the machine falls on every engine alike rather than on whichever ran at the time.

    A step that returns a tuple of ``(label, seconds)`` pairs times its own parts: each part's
    median is given as ``"<step>/<label>"`` beside the whole step's."""
    for _ in range(warmup):
        for step in steps.values():
            step()
    times: dict[str, list[float]] = {}
    for _ in range(repeats):
        for label, step in steps.items():
            start = cases.CLOCK[0]()
            parts = step()
            times.setdefault(label, []).append(cases.CLOCK[0]() - start)
            if isinstance(parts, tuple) and parts and isinstance(parts[0], tuple):
                for part, seconds in parts:
                    times.setdefault(f"{label}/{part}", []).append(seconds)
    return {label: statistics.median(ts) for label, ts in times.items()}


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:100] if str(exc) else ''}"


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
            errors[label] = _error(exc)
    medians = interleaved_medians(steps, repeats) if steps else {}
    result: dict[str, float | None] = {}
    for label in makers:
        if label in errors:
            print(f"  {label:<10} ERROR {errors[label]}")
            result[label] = None
            continue
        for key in sorted(k for k in medians if k == label or k.startswith(f"{label}/")):
            print(f"  {key:<32} {medians[key] * 1e3:10.3f} ms")
            result[key] = medians[key]
    return result


def _get(rows: dict[str, float | None], key: str) -> float | None:
    return rows.get(key)


def _memory(ownership: ModuleType | str, args: argparse.Namespace, summary: Summary) -> bool:
    """The two memory rows; True when both goals are met."""
    import torch

    print(f"  {args.views} views of a {args.mib} MiB float32 tensor (tracemalloc; torch allocates")
    print("  in C++, which tracemalloc does not see: its row is for reference)")
    views_used: int | None = None
    for label, engine in (("ownership", ownership), ("torch", torch)):
        try:
            if isinstance(engine, str):
                raise ImportError(engine)
            views_bytes, clone_bytes = cases.view_memory_bytes(engine, args.views, args.mib)
        except Exception as exc:  # reported, and a failure for ownership
            print(f"  {label:<10} ERROR {_error(exc)}")
            continue
        verdict = ""
        if label == "ownership":
            views_used = views_bytes
            verdict = "PASS" if views_bytes < VIEW_BUDGET_BYTES else "FAIL"
            verdict += f" (goal < {VIEW_BUDGET_BYTES / MIB:.0f} MiB)"
        print(
            f"  {label:<10} views {views_bytes / MIB:8.3f} MiB"
            f" ({views_bytes / max(args.views, 1):.0f} B/view);"
            f" control: one clone() {clone_bytes / MIB:8.3f} MiB  {verdict}"
        )
    views_ok = summary.memory(
        f"{args.views} views of a {args.mib} MiB tensor: memory", views_used, VIEW_BUDGET_BYTES
    )
    growth: int | None = None
    print(f"  {args.train_steps} training steps of the guide's MLP (64-32-10), ownership:")
    try:
        if isinstance(ownership, str):
            raise ImportError(ownership)
        growth, one_graph = cases.training_growth_bytes(ownership, args.train_steps)
        ok = growth < GROWTH_BUDGET_BYTES
        print(
            f"  kept after step 20 to {args.train_steps}: {growth / 1024:8.1f} KiB"
            f"  {'PASS' if ok else 'FAIL'} (goal < {GROWTH_BUDGET_BYTES // 1024} KiB);"
            f" control: one live graph {one_graph / 1024:8.1f} KiB"
        )
    except Exception as exc:  # reported, and a failure
        print(f"  ownership  ERROR {_error(exc)}")
    growth_ok = summary.memory(
        f"{args.train_steps} training steps: memory kept", growth, GROWTH_BUDGET_BYTES
    )
    return views_ok and growth_ok


def _contracts(
    ownership: ModuleType | str, torch: ModuleType, args: argparse.Namespace, summary: Summary
) -> None:
    """The chain's forward with each contract switched off in turn, then all of them, beside the
    whole engine, torch and the minimal engine (``bench/contract_costs.py``)."""
    n = args.contract_chain
    print(f"  chain of {n} tiny ops, forward, with torch's contracts switched off in turn")
    if isinstance(ownership, str):
        print(f"  ownership  ERROR cannot import ({ownership})")
        return
    contracts = contract_costs.CONTRACTS

    def maker(
        engine: ModuleType, patches: list[contract_costs.Patch]
    ) -> Callable[[], Callable[[], Any]]:
        return lambda: contract_costs.forward_step(engine, n, patches)

    makers = {"whole": maker(ownership, [])}
    for c in contracts:
        makers[c.label] = maker(ownership, contract_costs.switches(ownership, (c,)))
    makers["without all"] = maker(ownership, contract_costs.switches(ownership))
    makers["torch"] = maker(torch, [])
    makers["minimal"] = maker(minimal_engine, [])
    rows = _timed_rows(makers, args.repeats * 3)  # each switch moves the time by a few percent
    figure = f"{n:,}-op chain forward"
    summary.reference(f"{figure}, whole: ownership/torch", rows["whole"], rows["torch"])
    for c in contracts:
        summary.reference(
            f"{figure} without {c.label} ({c.where}): /whole", rows[c.label], rows["whole"]
        )
    summary.reference(
        f"{figure} without all {len(contracts)}: ownership/torch",
        rows["without all"],
        rows["torch"],
    )
    summary.reference(f"{figure}: minimal engine/torch", rows["minimal"], rows["torch"])


def _doctor(args: argparse.Namespace) -> None:
    for engine in ("torch", "ownership"):
        try:
            times = interleaved_medians(
                cases.doctor_steps(MLP_SCRIPT, engine, args.doctor_steps), max(args.repeats // 2, 1)
            )
        except Exception as exc:  # reported as a row, the bench goes on
            print(f"  {engine:<10} ERROR {_error(exc)}")
            continue
        ratio = times["doctor"] / times["plain"]
        verdict = ""
        if engine == "torch":
            verdict = ("PASS" if ratio < DOCTOR_GOAL else "FAIL") + f" (goal {DOCTOR_GOAL:.0f}x)"
        print(
            f"  {engine:<10} plain {times['plain'] * 1e3:9.1f} ms  doctor "
            f"{times['doctor'] * 1e3:9.1f} ms  ratio {ratio:5.2f}x  {verdict}"
        )


def _sections(args: argparse.Namespace) -> list[str]:
    if args.only:
        chosen = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = [name for name in chosen if name not in SECTIONS]
        if unknown:
            raise SystemExit(f"unknown section(s) {unknown}; choose from {', '.join(SECTIONS)}")
        return chosen
    skipped = QUICK_SKIPS if args.quick else ()
    return [name for name in SECTIONS if name not in skipped and (args.site or name != "site")]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen sections, print each row with its goal, and return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help=f"sections, comma-separated: {SECTIONS}")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, no doctor nor site")
    parser.add_argument("--repeats", type=int, default=None, help="default 10 (--quick: 4)")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--chain", type=int, default=200)
    parser.add_argument("--long-chain", type=int, default=10_000)
    parser.add_argument("--view-chain", type=int, default=10_000)
    parser.add_argument("--contract-chain", type=int, default=CONTRACT_CHAIN)
    parser.add_argument("--views", type=int, default=1000)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--train-steps", type=int, default=200)
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    parser.add_argument("--freeze", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (numpy: env vars)")
    parser.add_argument("--doctor-steps", type=int, default=30, help="MLP steps under the doctor")
    parser.add_argument("--site", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args(argv)
    if args.repeats is None:
        args.repeats = 4 if args.quick else 10
    sections = _sections(args)
    cases.CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter

    import torch

    torch.set_num_threads(args.threads)
    ownership = _import_ownership()
    print(
        f"numpy {np.__version__} (OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}),"
        f" torch {torch.__version__} ({torch.get_num_threads()} threads),"
        f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs,"
        f" clock: {'CPU time of the process' if args.clock == 'cpu' else 'wall'}"
    )
    if isinstance(ownership, str):
        print(f"ownership: cannot import ({ownership})")
    if args.freeze:
        gc.collect()
        gc.freeze()
        print(f"{gc.get_freeze_count()} objects of the imports frozen out of the collector")
    try:
        return _run_sections(sections, args, torch, ownership)
    finally:
        if args.freeze:
            gc.unfreeze()  # back to the collector (when main() runs inside another program)


def _run_sections(
    sections: list[str], args: argparse.Namespace, torch: ModuleType, ownership: ModuleType | str
) -> int:
    """Run the chosen sections in order; the exit status (non-zero when a memory goal fails)."""

    def own(make: Callable[[ModuleType], Callable[[], Any]]) -> Callable[[], Callable[[], Any]]:
        def build() -> Callable[[], Any]:
            if isinstance(ownership, str):
                raise ImportError(ownership)
            return make(ownership)

        return build

    def both(
        make: Callable[[ModuleType], Callable[[], Any]], repeats: int, floor: bool = False
    ) -> dict[str, Any]:
        """The rows of ownership and torch (and ``floor``: of ``minimal_engine``)."""
        makers = {"ownership": own(make), "torch": lambda: make(torch)}
        if floor:
            makers["minimal"] = lambda: make(minimal_engine)
        return _timed_rows(makers, repeats)

    summary = Summary()
    memory_ok = True
    for number, name in enumerate(sections, 1):
        if args.freeze:  # what earlier sections left alive is not this section's to collect
            gc.collect()
            gc.freeze()
        print(f"\n{number}. {name} (load average {os.getloadavg()[0]:.1f})")
        if name == "mlp":
            print(f"  MLP 784-256-10 step, batch {args.batch}, float32")
            rows = _timed_rows(
                {
                    "ownership": own(lambda e: cases.engine_mlp_step(e, args.batch, MLP_SIZES)),
                    "torch": lambda: cases.engine_mlp_step(torch, args.batch, MLP_SIZES),
                    "numpy": lambda: cases.numpy_mlp_step(args.batch, MLP_SIZES),
                    "minimal": lambda: cases.minimal_mlp_step(args.batch, MLP_SIZES),
                },
                args.repeats,
            )
            figure = "MLP 784-256-10 step, batch 256: "
            summary.ratio(figure + "ownership/numpy", rows["ownership"], rows["numpy"])
            summary.ratio(figure + "ownership/torch", rows["ownership"], rows["torch"])
            summary.reference(figure + "minimal engine/numpy", rows["minimal"], rows["numpy"])
        elif name == "tiny":
            print(f"  chain of {args.chain} tiny ops (3 elements), forward + backward")
            rows = both(lambda e: cases.chain_step(e, args.chain), args.repeats * 3, floor=True)
            figure = "200 tiny ops forward + backward: "
            summary.ratio(figure + "ownership/torch", rows["ownership"], rows["torch"])
            summary.reference(figure + "minimal engine/torch", rows["minimal"], rows["torch"])
        elif name == "micrograd":
            rows = both(cases.micrograd_step, args.repeats * 3)
            summary.ratio(
                "micrograd MLP 2-16-16-1, 100 points, step: ownership/torch",
                rows["ownership"],
                rows["torch"],
            )
        elif name == "chain":
            print(f"  chain of {args.long_chain} tiny ops, forward and backward timed apart")
            rows = both(
                lambda e: cases.split_chain_step(e, args.long_chain), args.repeats, floor=True
            )
            for part in ("forward", "backward"):
                summary.ratio(
                    f"10,000-op chain {part}: ownership/torch",
                    _get(rows, f"ownership/{part}"),
                    _get(rows, f"torch/{part}"),
                )
                summary.reference(
                    f"10,000-op chain {part}: minimal engine/torch",
                    _get(rows, f"minimal/{part}"),
                    _get(rows, f"torch/{part}"),
                )
        elif name == "views":
            print(f"  {args.view_chain} view calls in a chain, on a leaf that requires grad")
            rows = both(
                lambda e: cases.view_chain_step(e, args.view_chain), args.repeats, floor=True
            )
            figure = "10,000 view calls in a chain: "
            summary.ratio(figure + "ownership/torch", rows["ownership"], rows["torch"])
            summary.reference(figure + "minimal engine/torch", rows["minimal"], rows["torch"])
        elif name == "contracts":
            _contracts(ownership, torch, args, summary)
        elif name == "random":
            print("  seeded draws (torch's values in both engines)")
            for label, make in cases.random_cases(args.batch).items():
                rows = both(make, args.repeats)
                summary.reference(f"{label}: ownership/torch", rows["ownership"], rows["torch"])
        elif name == "memory":
            memory_ok = _memory(ownership, args, summary) and memory_ok
        elif name == "doctor":
            print(f"  the guide's MLP training script ({args.doctor_steps} steps)")
            _doctor(args)
        elif name == "site":
            print("  built with the flags of `make html` into a temporary folder")
            import site_build  # bench/, beside this script

            site_build.report(env=_USER_ENV)
    summary.print()
    if not memory_ok:
        print("\nmemory goal: FAIL")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
