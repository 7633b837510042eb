"""Grade a learner's solution of the unit's two practice exercises, naming the misconception.

.. code-block:: text

    ownership grade collect my_solution.py [--engine torch|ownership] [--json]
    ownership grade sgd my_solution.py ...   (or python -m ownership.grade ...)

- **collect**: ``collect_parameters(module) -> list[tuple[str, Tensor]]``, the module's
  parameters with their dotted names, in ``named_parameters()`` order, found by recursion over
  registration, each tied parameter once, the Parameters themselves.
- **sgd**: ``sgd_step(model, loss_fn, x, y, lr) -> float``, one full step (zero the gradients,
  forward, loss, backward, update every parameter in place outside gradient tracking),
  returning the loss.

The report is ``passed`` or a list of diagnoses, each a stable code from
:data:`~ownership.grade.catalogue.CATALOGUE` with a sentence naming the misconception and the
section of the unit to reread. The pieces, one per module: :mod:`~ownership.grade.cli` (the
command), :mod:`~ownership.grade.runner` (the subprocess with a time limit),
:mod:`~ownership.grade.worker` (grading inside it), :mod:`~ownership.grade.engines` (torch or
ownership as ``torch``), :mod:`~ownership.grade.learner` (loading and calling the learner's
file), :mod:`~ownership.grade.cases` (the generated inputs), :mod:`~ownership.grade.check_collect`
and :mod:`~ownership.grade.check_sgd` (the checks), :mod:`~ownership.grade.catalogue` and
:mod:`~ownership.grade.report`.
"""

from ownership.grade.catalogue import CATALOGUE
from ownership.grade.report import Diagnosis, Report
from ownership.grade.runner import run_grader
from ownership.grade.worker import grade_file

__all__ = ["CATALOGUE", "Diagnosis", "Report", "grade_file", "run_grader"]
