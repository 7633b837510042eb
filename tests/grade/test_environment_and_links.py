"""The grader tells the environment's problems from the learner's mistakes, and links each
section to reread.

Without torch (simulated: a ``torch`` module that raises ``ImportError`` comes first on the
path, torch itself stays installed) the command says the file was not graded, and what to fix
(install torch, or ``--engine ownership``), never ``[load-error] ... reread: the line shown``.
Each section to reread is a link into the site: its page and heading anchor exist in the guide's
sources (here) and in the built site (``tests/site``). The command runs in this process
(:mod:`support.inprocess`; the grader's own sandbox is still a subprocess), except without torch,
where the command's whole process must lack it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ownership.grade import run_grader
from ownership.grade.catalogue import CATALOGUE, DEFAULT_SITE_URL, SITE_URL_VARIABLE, site_url

from support.inprocess import run_module

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"
SOLUTION = ROOT / "docs" / "guide" / "practice_files" / "practice_solution.py"
FORMS = {"module": ("ownership.grade",), "subcommand": ("ownership", "grade")}


def grade(
    *args: str, form: str = "module", env: dict[str, str] | None = None, real: bool = False
) -> subprocess.CompletedProcess[str]:
    if not real:
        return run_module(*FORMS[form], *args, env=env)
    return subprocess.run(
        [sys.executable, "-m", *FORMS[form], *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def without_torch(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``import torch`` fails as it does where torch is not installed."""
    shadow = tmp_path / "no_torch"
    shadow.mkdir()
    (shadow / "torch.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\")\n")
    paths = [str(shadow), os.environ.get("PYTHONPATH", "")]
    return {"PYTHONPATH": os.pathsep.join(filter(None, paths))}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_without_torch_the_file_is_not_graded_and_the_fix_is_said(
    without_torch: dict[str, str], form: str
) -> None:
    done = grade("collect", str(SOLUTION), form=form, env=without_torch, real=True)
    assert done.returncode == 3, done.stdout + done.stderr
    text = " ".join(done.stdout.split())
    assert text.startswith(
        "collect_parameters in practice_solution.py was not graded with torch: a problem of the "
        "environment, not of your code"
    )
    assert "[torch-missing]" in text and "No module named 'torch'" in text
    assert (
        "fix: install torch in this Python (pip install torch), or use `--engine ownership`" in text
    )
    assert "load-error" not in text and "reread" not in text and "the line shown" not in text
    assert done.stderr == ""


def test_without_torch_json_and_the_ownership_engine(without_torch: dict[str, str]) -> None:
    done = grade("sgd", str(SOLUTION), "--json", env=without_torch, real=True)
    assert done.returncode == 3
    report = json.loads(done.stdout)
    assert (report["passed"], report["graded"]) == (False, False)
    (found,) = report["diagnoses"]
    assert found["code"] == "torch-missing" and found["url"] is None and found["reread"] == ""
    assert "--engine ownership" in found["fix"]
    engine = grade("sgd", str(SOLUTION), "--engine", "ownership", env=without_torch, real=True)
    assert engine.returncode == 0, engine.stdout + engine.stderr
    assert engine.stdout.strip().endswith("graded with ownership: passed")


def test_a_module_this_python_lacks_is_the_environments(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(
        "import numpy\nimport no_such_plotting_library\n\ndef sgd_step(*a):\n    pass\n"
    )
    done = grade("sgd", str(path), "--engine", "ownership", "--json")
    assert done.returncode == 3
    (found,) = json.loads(done.stdout)["diagnoses"]
    assert found["code"] == "missing-module"
    assert "No module named 'no_such_plotting_library'" in found["message"]
    assert found["where"] == "line 2 of your file: import no_such_plotting_library"
    assert found["fix"] and found["url"] is None


def test_a_learners_mistake_links_its_section_in_text_and_json() -> None:
    path = str(CORPUS / "collect_not_recursive.py")
    text = grade("collect", path, "--engine", "ownership")
    assert text.returncode == 1
    url = DEFAULT_SITE_URL + CATALOGUE["not-recursive"].page
    assert f"\n            {url}\n" in text.stdout + "\n"
    done = grade("collect", path, "--engine", "ownership", "--json", form="subcommand")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["graded"] is True
    assert [(d["code"], d["url"]) for d in report["diagnoses"]] == [("not-recursive", url)]


def test_the_sites_address_is_configurable() -> None:
    base = "https://guide.example.org/unit-1.7/"
    path = str(CORPUS / "collect_not_recursive.py")
    done = grade("collect", path, "--engine", "ownership", "--json", env={SITE_URL_VARIABLE: base})
    (found,) = json.loads(done.stdout)["diagnoses"]
    assert found["url"] == base + "guide/study-3-parameters-and-buffers.html" + (
        "#1-parameters-are-collected-recursively"
    )


def test_a_diagnosis_in_the_learners_file_has_no_link(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("def collect_parameters(module)\n    return []\n")
    done = grade("collect", str(path), "--json", "--engine", "ownership")
    assert done.returncode == 1
    (found,) = json.loads(done.stdout)["diagnoses"]
    assert (found["code"], found["url"], found["fix"]) == ("syntax-error", None, "")


def _slug(title: str) -> str:
    """MyST's heading anchor (GitHub's rule): lower case, spaces to hyphens, only word
    characters and hyphens kept."""
    return re.sub(r"[^\w\- ]", "", title.lower().replace(" ", "-"))


def _anchors(page: Path) -> set[str]:
    text = page.read_text()
    titles = re.findall(r"^#{1,3} (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M)
    return {_slug(t.replace("`", "")) for t in titles}


@pytest.mark.parametrize("code", [c for c, e in CATALOGUE.items() if e.page])
def test_every_link_is_a_page_and_heading_of_the_guide(code: str) -> None:
    entry = CATALOGUE[code]
    page, _, anchor = entry.page.partition("#")
    source = ROOT / "docs" / page.replace(".html", ".md")
    assert source.is_file(), entry.page
    assert not anchor or anchor in _anchors(source), (entry.page, sorted(_anchors(source)))
    if anchor:  # the words name the same section as the link
        assert _slug(entry.reread.rsplit('section "', 1)[1].rstrip('"')) == anchor


def test_every_code_either_links_a_section_or_says_why_not() -> None:
    for code, entry in CATALOGUE.items():
        if entry.fix:
            assert not entry.page and not entry.reread, code
        elif entry.exercise != "any":
            assert entry.page, code
    assert site_url("") is None


def test_a_grader_that_cannot_start_is_the_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox's Python cannot import numpy (so neither ownership): the worker dies before
    grading, and the report says so instead of blaming the learner's file."""
    shadow = tmp_path / "no_numpy"
    shadow.mkdir()
    (shadow / "numpy.py").write_text("raise ModuleNotFoundError(\"No module named 'numpy'\")\n")
    paths = [str(shadow), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))
    report = run_grader("collect", CORPUS / "collect_not_recursive.py", "ownership")
    assert report.codes == ["grader-failed"] and not report.graded
    (found,) = report.diagnoses
    assert "ModuleNotFoundError: No module named 'numpy'" in found.message
    assert found.url is None and "import ownership" in found.fix


def test_a_learners_file_that_kills_its_process_is_still_the_learners(tmp_path: Path) -> None:
    path = tmp_path / "exits.py"
    path.write_text("import os\n\ndef collect_parameters(module):\n    os._exit(3)\n")
    report = run_grader("collect", path, "ownership")
    assert report.codes == ["load-error"] and report.graded
    assert "ended without a report: exit status 3" in report.diagnoses[0].message
