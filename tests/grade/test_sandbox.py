"""The command runs the learner's file in a subprocess, with a time limit, in either engine.

The command itself runs in this process (:mod:`support.inprocess`); its sandbox is a subprocess.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ownership.grade import grade_file, run_grader

from support.inprocess import run_module

CORPUS = Path(__file__).parent / "corpus"


def grade_command(*args: str) -> subprocess.CompletedProcess[str]:
    return run_module("ownership.grade", *args)


def test_an_endless_loop_is_stopped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "loops.py"
    path.write_text("def collect_parameters(module):\n    while True:\n        pass\n")
    # one second: the loop spins on a core until the grader stops it
    report = run_grader("collect", path, "ownership", timeout=1)
    assert report.codes == ["timeout"] and "stopped after 1 s" in report.diagnoses[0].message


def test_the_command_grades_pytorch_code_with_torch_and_prints_json() -> None:
    done = grade_command("sgd", str(CORPUS / "sgd_data_no_zero.py"), "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["engine"] == "torch" and report["passed"] is False
    assert [d["code"] for d in report["diagnoses"]] == ["data-update", "no-zero-grad"]
    assert report["file"] == "sgd_data_no_zero.py" and done.stderr == ""


def test_with_ownership_the_learners_import_torch_is_ownership(tmp_path: Path) -> None:
    path = tmp_path / "solution.py"
    source = (CORPUS / "collect_ok_registry.py").read_text()
    path.write_text(
        source.replace(
            "import torch\n",
            "import torch\nimport torch.nn as nn\n"
            "assert torch.__name__ == nn.__name__.split('.')[0] == 'ownership'\n",
        )
    )
    done = grade_command("collect", str(path), "--engine", "ownership")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "collect_parameters in solution.py, graded with ownership: passed"
    assert grade_file("collect", path, "torch").codes == ["load-error"]


def test_the_subprocess_and_this_process_agree() -> None:
    path = CORPUS / "collect_shallow_by_name.py"
    assert run_grader("collect", path, "ownership") == grade_file("collect", path, "ownership")


def test_a_missing_file_is_a_usage_error() -> None:
    done = grade_command("collect", "no_such_file.py")
    assert done.returncode == 2 and "no such file" in done.stderr
