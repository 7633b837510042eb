"""Run `make test`'s stages one after the other and close with what each one cost.

``python3 tools/stages.py STAGE ...`` runs ``make STAGE`` for each stage in turn, its output
passed through as it comes, and stops at the first stage that fails (as make would). Then it
prints one summary, whatever happened: per stage its wall time, the CPU time (user + system) of
everything it ran, and pytest's tally (the last ``N passed ...`` line a pytest stage printed).
The README quotes these lines (``tests/build/test_make_test_summary.py`` checks its figures have
this format). CPU time is the figure to compare between machines and busy hours: on a shared
machine the wall time grows with the other users, the CPU time hardly at all.

Standard library only: it runs with the system ``python3``, before ``.venv`` exists.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass

# pytest's closing line: "= 1234 passed, 5 skipped, 3 xfailed in 81.25s (0:01:21) ="
TALLY = re.compile(r"^=+ (?P<tally>\d+ \w+(?:, \d+ \w+)*) in [\d.]+s(?: \([\d:]+\))? =+$")
HEADER = f"{'stage':<16} {'wall':>9} {'cpu':>9}  tests"
ROW = "{name:<16} {wall:>7.0f} s {cpu:>7.0f} s  {tests}"


@dataclass
class Stage:
    """What one stage cost: wall and CPU seconds, pytest's tally ("" if it ran no pytest)."""

    name: str
    wall: float
    cpu: float
    tests: str
    ok: bool


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(name: str) -> Stage:
    """``make NAME``, its output streamed through; the time it took and pytest's tally."""
    wall, cpu, tests = time.perf_counter(), _children_cpu(), ""
    process = subprocess.Popen(
        ["make", "--no-print-directory", name],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    assert process.stdout is not None
    for line in process.stdout:
        sys.stdout.write(line)
        if match := TALLY.match(line.strip()):
            tests = match["tally"]
    ok = process.wait() == 0
    return Stage(name, time.perf_counter() - wall, _children_cpu() - cpu, tests, ok)


def summary(stages: list[Stage], planned: list[str]) -> str:
    """The closing table: one row per stage run, then the total (and the stages not run)."""
    rows = [HEADER]
    for s in stages:
        rows.append(ROW.format(name=s.name, wall=s.wall, cpu=s.cpu, tests=s.tests).rstrip())
        if not s.ok:
            rows[-1] += "  FAILED"
    total_wall, total_cpu = sum(s.wall for s in stages), sum(s.cpu for s in stages)
    rows.append(ROW.format(name="total", wall=total_wall, cpu=total_cpu, tests="").rstrip())
    skipped = planned[len(stages) :]
    if skipped:
        rows.append(f"not run (a stage failed): {' '.join(skipped)}")
    cores = os.cpu_count()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    rows.append(f"on {cores} cores, load average {load} at the end")
    return "\n".join(rows)


def main(planned: list[str]) -> int:
    stages: list[Stage] = []
    for name in planned:
        stages.append(run(name))
        if not stages[-1].ok:
            break
    ok = all(s.ok for s in stages) and len(stages) == len(planned)
    print(f"\nmake test: {'every check passed' if ok else 'a check FAILED'}")
    print(summary(stages, planned))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
