"""Run `make test`'s stages and close with what each one cost.

``python3 tools/stages.py STAGE ...`` runs ``make STAGE`` for each stage in turn, its output
passed through as it comes, and stops after the first step that fails (as make would). A step
may be several stages joined by ``+`` (``typecheck+doctest``): they run side by side, the first
one's output passed through as it comes, each other's printed whole when it ends; use it for
stages that each leave cores idle (one that needs a single core, one that waits on a browser), so
that together they fill the machine.

Then it prints one summary, whatever happened: per stage its wall time, the CPU time (user +
system) of everything it ran, and pytest's tally (the last ``N passed ...`` line a pytest stage
printed); the total's wall time is the whole run's (less than the stages' sum when some ran side
by side). The README quotes these lines (``tests/build/test_make_test_summary.py`` checks its
figures have this format). CPU time is the figure to compare between machines and busy hours:
on a shared machine the wall time grows with the other users, the CPU time hardly at all.

Standard library only: it runs with the system ``python3``, before ``.venv`` exists.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

# pytest's closing line: "= 1234 passed, 5 skipped, 3 xfailed in 81.25s (0:01:21) ="
TALLY = re.compile(r"^=+ (?P<tally>\d+ \w+(?:, \d+ \w+)*) in [\d.]+s(?: \([\d:]+\))? =+$")
HEADER = f"{'stage':<16} {'wall':>9} {'cpu':>9}  tests"
ROW = "{name:<16} {wall:>7.0f} s {cpu:>7.0f} s  {tests}"
# The stages of one step, run side by side: "typecheck+doctest".
BESIDE = "+"


@dataclass
class Stage:
    """What one stage cost: wall and CPU seconds, pytest's tally ("" if it ran no pytest)."""

    name: str
    wall: float
    cpu: float
    tests: str
    ok: bool


@dataclass
class _Running:
    """A stage under way: its ``make``, the output held back (unless passed through live)."""

    name: str
    live: bool
    process: subprocess.Popen[str]
    started: float = field(default_factory=time.perf_counter)
    held: list[str] = field(default_factory=list)
    stage: Stage | None = None


def _follow(running: _Running) -> None:
    """Read the stage's output to its end, then reap it: its wall time, CPU time and tally."""
    tests = ""
    assert running.process.stdout is not None
    for line in running.process.stdout:
        if running.live:
            sys.stdout.write(line)
            sys.stdout.flush()
        else:
            running.held.append(line)
        if match := TALLY.match(line.strip()):
            tests = match["tally"]
    # wait4: this child's own resource usage (it and the processes it waited for), so stages
    # that run side by side are each charged their own CPU time.
    _, status, usage = os.wait4(running.process.pid, 0)
    running.process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - running.started
    cpu = usage.ru_utime + usage.ru_stime
    ok = running.process.returncode == 0
    running.stage = Stage(running.name, wall, cpu, tests, ok)


def run_step(names: list[str]) -> list[Stage]:
    """``make NAME`` for each name, side by side; the first one's output streamed through."""
    threads = []
    runs = []
    for i, name in enumerate(names):
        process = subprocess.Popen(
            ["make", "--no-print-directory", name],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        running = _Running(name, live=i == 0, process=process)
        thread = threading.Thread(target=_follow, args=(running,))
        thread.start()
        runs.append(running)
        threads.append(thread)
    for running, thread in zip(runs, threads, strict=True):
        thread.join()
        if not running.live:
            sys.stdout.write(f"--- make {running.name} (ran beside {names[0]}) ---\n")
            sys.stdout.writelines(running.held)
            sys.stdout.flush()
    return [r.stage for r in runs if r.stage is not None]


def run(name: str) -> Stage:
    """``make NAME``, its output streamed through; the time it took and pytest's tally."""
    return run_step([name])[0]


def summary(stages: list[Stage], planned: list[str], wall: float | None = None) -> str:
    """The closing table: one row per stage run, then the total (and the stages not run).

    ``wall`` is the whole run's wall time (by default the stages' sum, as when none ran beside
    another)."""
    rows = [HEADER]
    for s in stages:
        rows.append(ROW.format(name=s.name, wall=s.wall, cpu=s.cpu, tests=s.tests).rstrip())
        if not s.ok:
            rows[-1] += "  FAILED"
    total_wall = sum(s.wall for s in stages) if wall is None else wall
    total_cpu = sum(s.cpu for s in stages)
    rows.append(ROW.format(name="total", wall=total_wall, cpu=total_cpu, tests="").rstrip())
    ran = {s.name for s in stages}
    skipped = [name for name in planned if name not in ran]
    if skipped:
        rows.append(f"not run (a stage failed): {' '.join(skipped)}")
    cores = os.cpu_count()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    rows.append(f"on {cores} cores, load average {load} at the end")
    return "\n".join(rows)


def main(steps: list[str]) -> int:
    started = time.perf_counter()
    planned = [name for step in steps for name in step.split(BESIDE)]
    stages: list[Stage] = []
    for step in steps:
        stages += run_step(step.split(BESIDE))
        if not all(s.ok for s in stages):
            break
    ok = all(s.ok for s in stages) and len(stages) == len(planned)
    print(f"\nmake test: {'every check passed' if ok else 'a check FAILED'}")
    print(summary(stages, planned, time.perf_counter() - started))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
