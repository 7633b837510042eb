"""``python -m ownership.doctor`` (and ``ownership doctor``): the script's own output and status
first, then the report; ``--json`` prints only JSON on standard output, in the documented schema;
a script that stopped before any tensor operation is said to be unchecked, with only its own
frames; ``--strict`` makes a finding fail the command. The scripts run in subprocesses (what the
doctor watches must start clean), under the ownership engine where torch is not the point (a
process that imports torch costs a second and a half of CPU); the usage cases run in this process
(:mod:`support.inprocess`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ownership.doctor import CODES

from support.doctor_corpus import SCRIPTS
from support.inprocess import run_module


def doctor(
    *args: str, engine: str = "torch", command: tuple[str, ...] = ("ownership.doctor",)
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCTOR_ENGINE": engine}
    return subprocess.run(
        [sys.executable, "-m", *command, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.parametrize("engine", ["torch", "ownership"])
@pytest.mark.parametrize("name", ["bug_sigmoid_mul.py", "bug_autograd_grad.py"])
def test_the_version_error_comes_first_unchanged_then_the_finding(name: str, engine: str) -> None:
    script = SCRIPTS / name
    alone = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "DOCTOR_ENGINE": engine},
    )
    run = doctor(str(script), engine=engine)
    assert run.returncode == alone.returncode == 1
    message = alone.stderr.strip().splitlines()[-1]
    assert message.startswith("RuntimeError: one of the variables needed")
    assert run.stderr.strip().splitlines()[-1] == message
    assert run.stderr == alone.stderr  # the whole traceback, frame for frame
    assert "ownership/doctor" not in run.stderr
    report = run.stdout
    assert report.lstrip().startswith("doctor: 1 finding")
    assert f"{script.name}:14: inplace-write" in report
    assert "- saved:" in report and "h = x.sigmoid()" in report


def test_a_clean_script_keeps_its_output_and_status() -> None:
    run = doctor(str(SCRIPTS / "clean_inplace_safe.py"))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith("tensor(")
    assert run.stdout.rstrip().endswith("doctor: no findings")


def test_json_schema(tmp_path: Path) -> None:
    run = doctor("--json", str(SCRIPTS / "bug_modules_in_list.py"), engine="ownership")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert set(doc) == {
        "version",
        "script",
        "engines",
        "exit_status",
        "checked",
        "stopped_at",
        "findings",
    }
    assert doc["checked"] is True and doc["stopped_at"] is None
    assert doc["version"] == 1
    assert doc["script"] == str(SCRIPTS / "bug_modules_in_list.py")
    assert doc["engines"] == ["ownership"]
    assert doc["exit_status"] == 0
    assert [f["code"] for f in doc["findings"]] == ["unregistered-module", "not-optimized"]
    for finding in doc["findings"]:
        assert set(finding) == {"code", "file", "line", "message", "related"}
        assert finding["code"] in CODES
        assert isinstance(finding["line"], int) and isinstance(finding["message"], str)
        for related in finding["related"]:
            assert set(related) == {"role", "file", "line", "function", "text"}


def test_script_arguments_and_exit_status(tmp_path: Path) -> None:
    script = tmp_path / "argv.py"
    script.write_text("import sys\nprint(sys.argv[1:])\nsys.exit(int(sys.argv[1]))\n")
    run = doctor("--json", str(script), "3", "--flag")
    assert run.returncode == 3
    assert "['3', '--flag']" in run.stderr  # the script's output moves to stderr under --json
    assert json.loads(run.stdout)["findings"] == []


def test_torch_is_imported_only_when_the_script_uses_it(tmp_path: Path) -> None:
    script = tmp_path / "own.py"
    script.write_text(
        "import sys\nimport ownership as torch\n"
        "h = torch.ones(2, requires_grad=True).exp()\nprint('torch' in sys.modules)\n"
    )
    run = doctor(str(script))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == "False"


def test_a_missing_script_is_a_usage_error(tmp_path: Path) -> None:
    run = run_module("ownership.doctor", str(tmp_path / "missing.py"))
    assert run.returncode == 2
    assert "no such script" in run.stderr


UNCHECKED = "before any tensor operation ran: nothing was checked"


@pytest.mark.parametrize(
    "command", [("ownership.doctor",), ("ownership", "doctor")], ids=["module", "subcommand"]
)
def test_a_syntax_error_is_reported_unchecked_with_no_interpreter_frame(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import os\nx = 1\ndef f(:\n    pass\n")
    run = doctor(str(script), command=command)
    assert run.returncode == 1
    assert "<frozen" not in run.stderr and "runpy" not in run.stderr
    assert run.stderr.startswith(f'  File "{script}", line 3\n')
    assert run.stderr.rstrip().endswith("SyntaxError: invalid syntax")
    assert run.stdout.strip() == f"doctor: {script} stopped at line 3, {UNCHECKED}"
    assert "no findings" not in run.stdout


def test_a_failing_import_torch_is_reported_unchecked_with_the_users_frames(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "torch.py").write_text("raise ImportError('no torch in this environment')\n")
    script = tmp_path / "train.py"
    script.write_text("import math\nimport torch\n\nprint(torch.ones(2))\n")
    paths = [str(shadow), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    run = subprocess.run(
        [sys.executable, "-m", "ownership.doctor", "--json", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 1
    frames = [line for line in run.stderr.splitlines() if line.startswith("  File ")]
    assert frames == [
        f'  File "{script}", line 2, in <module>',
        f'  File "{shadow / "torch.py"}", line 1, in <module>',
    ]
    assert run.stderr.rstrip().endswith("ImportError: no torch in this environment")
    doc = json.loads(run.stdout)
    assert doc["checked"] is False and doc["findings"] == []
    assert doc["stopped_at"] == {"file": str(script), "line": 2}
    assert doc["exit_status"] == 1


def test_a_missing_module_is_reported_unchecked(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("import torch\nimport no_such_module_here\nx = torch.ones(2)\n")
    run = doctor(str(script))
    assert run.returncode == 1
    assert "frozen" not in run.stderr
    assert "ModuleNotFoundError: No module named 'no_such_module_here'" in run.stderr
    assert run.stdout.strip() == f"doctor: {script} stopped at line 2, {UNCHECKED}"


def test_warnings_the_compiler_and_an_error_after_the_first_operation(tmp_path: Path) -> None:
    """Three rules, one script (each doctor run under torch pays torch's import): torch's warnings
    keep pointing at the user's line; watching torch does not load its compiler (torch would wrap
    the doctor's dispatch mode to keep ``torch.compile`` out and import ``torch._dynamo``, seconds,
    at the first op it sees); an error after the first operation keeps the checks (the report
    follows, not "stopped at line N, nothing was checked")."""
    script = tmp_path / "late.py"
    script.write_text(
        "import sys\nimport torch\nx = torch.ones(1, requires_grad=True) * 2\nprint(float(x))\n"
        "(x * 2).sigmoid().sum().backward()\n"
        "print('compiler loaded:', 'torch._dynamo' in sys.modules)\n"
        "raise ValueError('late')\n"
    )
    run = doctor(str(script))
    assert f"{script}:4: UserWarning: Converting a tensor" in run.stderr, run.stderr
    assert run.stdout.splitlines()[:2] == ["2.0", "compiler loaded: False"], run.stdout
    assert run.returncode == 1
    assert run.stdout.split("\n", 2)[2].strip() == "doctor: no findings", run.stdout
    assert run.stderr.rstrip().endswith("ValueError: late")


@pytest.mark.parametrize(
    "command", [("ownership.doctor",), ("ownership", "doctor")], ids=["module", "subcommand"]
)
def test_findings_fail_the_command_only_under_strict(command: tuple[str, ...]) -> None:
    script = str(SCRIPTS / "bug_modules_in_list.py")
    plain = doctor(script, engine="ownership", command=command)
    assert plain.returncode == 0, plain.stderr
    assert "unregistered-module" in plain.stdout
    strict = doctor("--strict", script, engine="ownership", command=command)
    assert strict.returncode == 1, strict.stderr
    assert strict.stdout == plain.stdout
    # under the engine the other runs use: the exit status is the doctor's, whatever the engine
    # (the clean script under torch: test_a_clean_script_keeps_its_output_and_status)
    clean = doctor(
        "--strict", str(SCRIPTS / "clean_inplace_safe.py"), engine="ownership", command=command
    )
    assert clean.returncode == 0, clean.stderr


def test_the_exit_status_is_documented() -> None:
    run = run_module("ownership.doctor", "--help")
    assert run.returncode == 0
    text = " ".join(run.stdout.split())
    assert "--strict" in text
    assert "exit status: the script's own when it is not 0" in text
    page = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "doctor.md").read_text()
    assert "## Exit status" in page and "--strict" in page
