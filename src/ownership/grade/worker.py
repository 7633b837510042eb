"""Grade one file in this process: load it, run the exercise's checks, return the report.

The sandbox (:mod:`ownership.grade.runner`) calls :func:`main` with ``EXERCISE FILE ENGINE SEED
OUT`` in a subprocess with a time limit; it writes the report's JSON to ``OUT``. :func:`grade_file` is the same grading without the
subprocess (for code that already trusts the file, such as tests of known solutions).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ownership.grade.catalogue import diagnosis
from ownership.grade.check_collect import check_collect
from ownership.grade.check_sgd import check_sgd
from ownership.grade.engines import as_torch, engine
from ownership.grade.learner import LearnerProblem, load
from ownership.grade.report import Diagnosis, Report

__all__ = ["CHECKS", "grade_file", "main"]

#: The check of each exercise: the function that grades it, returning its codes.
CHECKS = {"collect": check_collect, "sgd": check_sgd}


def grade_file(exercise: str, path: Path, engine_name: str = "torch", seed: int = 0) -> Report:
    """Grade ``path``'s function for ``exercise`` with the engine ``engine_name``.

    Problems on the learner's side become diagnoses; the report passes when there is none. An
    engine that cannot be imported (no torch) is the environment's problem: ``torch-missing``.
    """
    if exercise not in CHECKS:
        raise ValueError(f"unknown exercise {exercise!r}; choose one of {', '.join(CHECKS)}")
    path = Path(path).resolve()
    try:
        module = engine(engine_name)
    except ImportError as error:  # the environment's problem (no torch), not the learner's
        detail = f"({type(error).__name__}: {error}; this Python: {sys.executable})"
        return Report(exercise, engine_name, path.name, (diagnosis("torch-missing", detail),))
    found: list[Diagnosis] = []
    with as_torch(module):
        try:
            function = load(path, exercise)
            found = [diagnosis(c) for c in CHECKS[exercise](function, path, module, seed)]
        except LearnerProblem as problem:
            found = [problem.diagnosis]
    return Report(exercise, engine_name, path.name, tuple(found))


def main(argv: list[str]) -> int:
    """The subprocess's entry: grade, write the JSON report to the last argument."""
    exercise, file, engine_name, seed, out = argv
    report = grade_file(exercise, Path(file), engine_name, int(seed))
    Path(out).write_text(report.to_json(), encoding="utf-8")
    return 0
