"""`make test` closes with a summary of its stages, and the README quotes that summary.

``tools/stages.py`` runs the Makefile's ``TEST_STAGES`` (one by one, or side by side where joined
by ``+``) and prints, per stage, its wall time, its CPU time and pytest's tally. The README's
figures are a copy of that block: the same header, the same stages in the same order, rows in the
same format (``??`` for a figure not measured yet), so that a figure in the README can only come
from `make test` itself.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
FIGURE = r"(?:\d+|\?\?)"
ROW = re.compile(
    rf"^(?P<name>[\w-]+) +(?P<wall>{FIGURE}) s +(?P<cpu>{FIGURE}) s(?:  (?P<tests>.+))?$"
)
TALLY = re.compile(rf"^{FIGURE} [a-z]+(?:, {FIGURE} [a-z]+)*$")
CLOSING = re.compile(rf"^on {FIGURE} cores, load average [\d. ?]+ at the end$")


def _stages() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stages", ROOT / "tools" / "stages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["stages"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def makefile_stages() -> list[str]:
    text = (ROOT / "Makefile").read_text()
    match = re.search(r"^TEST_STAGES := (.+)$", text, re.MULTILINE)
    assert match, "the Makefile has no TEST_STAGES"
    return [name for step in match[1].split() for name in step.split("+")]


def readme_summary() -> list[str]:
    """The README's copy of the summary: the text block that starts with ``make test:``."""
    blocks = re.findall(r"```text\n(make test:.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert len(blocks) == 1, "the README should quote make test's summary once"
    return blocks[0].rstrip("\n").splitlines()


def check_summary(lines: list[str], stages: list[str]) -> None:
    """``lines`` are a summary of ``stages``, all passed, in ``tools/stages.py``'s format."""
    assert lines[0] == "make test: every check passed"
    assert lines[1] == _stages().HEADER
    rows = [ROW.match(line) for line in lines[2:-1]]
    assert all(rows), [line for line, row in zip(lines[2:-1], rows, strict=True) if not row]
    assert [row["name"] for row in rows if row] == [*stages, "total"]
    tallies = [row["tests"] for row in rows if row and row["tests"]]
    assert all(TALLY.match(t) for t in tallies), tallies
    assert CLOSING.match(lines[-1]), lines[-1]


def test_make_test_runs_the_stages_through_the_summary() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(
        r"^test:.*\n\t@env -u PYTHONDONTWRITEBYTECODE \$\(PYTHON\) tools/stages\.py \$\(TEST_STAGES\)$",
        makefile,
        re.M,
    )
    stages = makefile_stages()
    assert stages[0] == "venv" and {"pytest", "pytest-baseline", "html-fresh"} <= set(stages)
    for stage in stages:
        assert re.search(rf"^{re.escape(stage)}:", makefile, re.MULTILINE), stage


def test_the_summary_has_its_format() -> None:
    stages = _stages()
    names = makefile_stages()
    ran = [
        stages.Stage(name, 61.4, 122.6, "15118 passed, 3 skipped" if "pytest" in name else "", True)
        for name in names
    ]
    lines = ["make test: every check passed", *stages.summary(ran, names).splitlines()]
    check_summary(lines, names)


def test_the_readme_quotes_the_summary() -> None:
    check_summary(readme_summary(), makefile_stages())


def test_the_summary_stops_at_the_first_failing_stage(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(
        "ok:\n\t@echo '========= 3 passed, 1 skipped in 0.10s ========='\n"
        "bad:\n\t@exit 3\n"
        "never:\n\t@echo never ran\n"
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "stages.py"), "ok", "bad", "never"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "never ran" not in done.stdout
    assert "make test: a check FAILED" in lines
    ok = next(ROW.match(line) for line in lines if line.startswith("ok "))
    assert ok is not None and ok["tests"] == "3 passed, 1 skipped"
    assert any(line.startswith("bad ") and line.endswith("FAILED") for line in lines), lines
    assert "not run (a stage failed): never" in lines


def test_stages_joined_by_a_plus_run_side_by_side(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(
        "one:\n\t@sleep 2; echo one done\n"
        "two:\n\t@echo two started; sleep 2; echo two done\n"
        "after:\n\t@echo after\n"
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "stages.py"), "one+two", "after"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    # the first stage's output comes as it is printed; the other's whole, after it, before `after`
    assert lines.index("one done") < lines.index("two started") < lines.index("after")
    rows = {m["name"]: m for m in map(ROW.match, lines) if m}
    assert list(rows) == ["one", "two", "after", "total"]
    assert float(rows["one"]["wall"]) >= 2 and float(rows["two"]["wall"]) >= 2
    # the total is the run's wall time, not the stages' sum
    assert float(rows["total"]["wall"]) < 4, done.stdout
