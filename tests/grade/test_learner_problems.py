"""What goes wrong on the learner's side is one clear diagnosis, never a grader traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from ownership.grade import grade_file

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "docs" / "guide" / "practice_files" / "practice_starter.py"
SOLUTION = STARTER.with_name("practice_solution.py")


def grade_source(tmp_path: Path, exercise: str, source: str, engine: str = "ownership") -> str:
    path = tmp_path / "my_solution.py"
    path.write_text(source)
    report = grade_file(exercise, path, engine)
    text = report.text()
    assert "Traceback" not in text and "ownership/grade" not in text and str(tmp_path) not in text
    assert len(report.diagnoses) == 1, text
    found = report.diagnoses[0]
    return f"{found.code}|{found.message} {found.where}"


def test_syntax_error(tmp_path: Path) -> None:
    said = grade_source(tmp_path, "collect", "def collect_parameters(module)\n    return []\n")
    assert said.startswith("syntax-error|") and "line 1 of your file" in said


def test_missing_function(tmp_path: Path) -> None:
    said = grade_source(tmp_path, "sgd", "def sgd(model, loss_fn, x, y, lr):\n    pass\n")
    assert said.startswith("missing-function|") and "Define sgd_step." in said


def test_wrong_signature(tmp_path: Path) -> None:
    said = grade_source(tmp_path, "sgd", "def sgd_step(model, x, y):\n    pass\n")
    assert said.startswith("wrong-signature|")
    assert "sgd_step(model, x, y)" in said and "sgd_step(model, loss_fn, x, y, lr)" in said


def test_an_exception_is_shown_at_the_learners_line(tmp_path: Path) -> None:
    source = (
        "def sgd_step(model, loss_fn, x, y, lr):\n"
        "    loss = loss_fn(model(x), y)\n"
        "    model.zero_grad()\n"
        "    for p in model.parameters():\n"
        "        p.data -= lr * p.grad\n"
        "    return loss.item()\n"
    )
    said = grade_source(tmp_path, "sgd", source)
    assert said.startswith("raised|")
    assert "line 5 of your file: p.data -= lr * p.grad" in said
    assert "TypeError: unsupported operand" in said and ".grad is None" in said


def test_a_leaf_written_with_grad_mode_on_is_the_tracked_update_code(tmp_path: Path) -> None:
    source = (
        "def sgd_step(model, loss_fn, x, y, lr):\n"
        "    model.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    for p in model.parameters():\n"
        "        p.sub_(lr * p.grad)\n"
        "    return loss.item()\n"
    )
    said = grade_source(tmp_path, "sgd", source, engine="torch")
    assert said.startswith("tracked-update|") and "line 6 of your file: p.sub_(lr * p.grad)" in said


def test_an_error_while_loading(tmp_path: Path) -> None:
    said = grade_source(tmp_path, "collect", "import torch\nW = torch.zeros(2) @ torch.zeros(3)\n")
    assert said.startswith("load-error|") and "line 2 of your file" in said


def test_an_endless_recursion_is_named(tmp_path: Path) -> None:
    source = "def collect_parameters(module):\n    return collect_parameters(module)\n"
    said = grade_source(tmp_path, "collect", source)
    assert said.startswith("raised|") and "RecursionError" in said and "line 2" in said


def test_a_wrong_return_type(tmp_path: Path) -> None:
    source = "def collect_parameters(module):\n    return dict(module.named_modules())\n"
    assert grade_source(tmp_path, "collect", source).startswith("bad-return|")


@pytest.mark.parametrize("exercise", ["collect", "sgd"])
def test_the_starter_file_says_it_is_not_written_yet(exercise: str, tmp_path: Path) -> None:
    said = grade_source(tmp_path, exercise, STARTER.read_text(), engine="torch")
    assert (
        said.startswith("raised|") and "NotImplementedError" in said and "not written yet" in said
    )


@pytest.mark.parametrize("engine", ["torch", "ownership"])
@pytest.mark.parametrize("exercise", ["collect", "sgd"])
def test_the_guides_reference_solutions_pass(exercise: str, engine: str) -> None:
    solution = STARTER.with_name("practice_solution.py")
    assert grade_file(exercise, solution, engine).passed


def test_a_none_entry_says_what_none_is(tmp_path: Path) -> None:
    source = (
        "def collect_parameters(module, prefix=''):\n"
        "    found = [(prefix + n, p) for n, p in module._parameters.items()]\n"
        "    for name, child in module._modules.items():\n"
        "        found += collect_parameters(child, prefix + name + '.')\n"
        "    return found\n"
    )
    said = grade_source(tmp_path, "collect", source)
    assert said.startswith("bad-return|") and "None): a name registered without a tensor" in said


def test_exit_is_shown_at_the_learners_line(tmp_path: Path) -> None:
    source = "import sys\n\n\ndef collect_parameters(module):\n    sys.exit(3)\n"
    said = grade_source(tmp_path, "collect", source)
    assert said.startswith("raised|") and "SystemExit: 3" in said and "line 5 of your file" in said


def test_the_learners_own_helper_module_is_found(tmp_path: Path) -> None:
    (tmp_path / "my_helpers.py").write_text(SOLUTION.read_text())
    path = tmp_path / "my_solution.py"
    path.write_text("from my_helpers import collect_parameters\n")
    assert grade_file("collect", path, "ownership").passed
