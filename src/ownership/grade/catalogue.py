"""The grader's diagnoses: one stable code per misconception, its sentence and what to reread.

A code never changes meaning (scripts and the guide key on it); the sentence names the
misconception in the learner's terms, ``reread`` names the unit's section that teaches the rule,
and ``page`` is that section's address in the site (:func:`site_url` makes it a link). A few
codes are not the learner's mistakes but the environment's (``torch-missing``,
``grader-failed``, ``missing-module``): they say what to ``fix`` instead of what to reread.
:func:`diagnosis` builds one :class:`~ownership.grade.report.Diagnosis` from a code.

>>> from ownership.grade.catalogue import CATALOGUE
>>> CATALOGUE["tied-twice"].exercise
'collect'
>>> print(CATALOGUE["tied-twice"].reread)
"Study 3: parameters versus buffers", section "1. Parameters are collected recursively"
>>> print(CATALOGUE["tied-twice"].page)
guide/study-3-parameters-and-buffers.html#1-parameters-are-collected-recursively
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ownership.grade.report import Diagnosis

__all__ = ["CATALOGUE", "DEFAULT_SITE_URL", "SITE_URL_VARIABLE", "Entry", "diagnosis", "site_url"]

#: The environment variable that holds the site's address (where the study guide is served).
SITE_URL_VARIABLE = "OWNERSHIP_SITE_URL"
#: The site's address when the variable is not set: the guide as ``make serve`` serves it.
DEFAULT_SITE_URL = "http://127.0.0.1:8000/"


def site_url(page: str) -> str | None:
    """The link to ``page`` (a path relative to the site's root, with its ``#section``) in the
    site at ``$OWNERSHIP_SITE_URL`` (default :data:`DEFAULT_SITE_URL`); None for no page.

    >>> site_url("guide/traps.html#trap-1") == DEFAULT_SITE_URL + "guide/traps.html#trap-1"
    True
    """
    if not page:
        return None
    base = os.environ.get(SITE_URL_VARIABLE) or DEFAULT_SITE_URL
    return base.rstrip("/") + "/" + page


# (the section's name, as the report says it; its page and anchor in the site)
_S1 = '"Study 1: in-place hazards and the version counter"'
_S2 = '"Study 2: detach and the training-loop contract"'
_S3 = '"Study 3: parameters versus buffers"'
_P1 = "guide/study-1-version-counter.html"
_P2 = "guide/study-2-detach-and-accumulation.html"
_P3 = "guide/study-3-parameters-and-buffers.html"
_PRACTICE = "guide/practice.html"
_COLLECT = (
    f'{_S3}, section "1. Parameters are collected recursively"',
    f"{_P3}#1-parameters-are-collected-recursively",
)
_BUFFERS = (
    f'{_S3}, section "2. Buffers, and the tensor that is neither"',
    f"{_P3}#2-buffers-and-the-tensor-that-is-neither",
)
_OPTIMIZER = (
    f'{_S3}, section "3. What the optimizer mutates"',
    f"{_P3}#3-what-the-optimizer-mutates",
)
_ACCUMULATE = (
    f'{_S2}, section "3. Two backward calls in a row"',
    f"{_P2}#3-two-backward-calls-in-a-row",
)
_INPLACE = (f'{_S1}, section "4. Ways around the error"', f"{_P1}#4-ways-around-the-error")
_DATA = (
    '"Traps", section "Trap 1: writing through .data to get past the version error"',
    "guide/traps.html#trap-1-writing-through-data-to-get-past-the-version-error",
)
_LOOP = (
    '"Practice: collect the parameters, take one SGD step", '
    'section "Exercise 2: Apply One Full SGD Training Step"',
    f"{_PRACTICE}#exercise-2-apply-one-full-sgd-training-step",
)
_STATEMENT = ("the exercise statement on the practice page", _PRACTICE)
_YOUR_LINE = ("the line shown, in your file", "")


@dataclass(frozen=True)
class Entry:
    """One code of the catalogue: the exercise it belongs to (or ``any``), sentence, what to
    reread and its ``page`` in the site (``""`` when it is the learner's own file), and, for a
    problem of the environment rather than of the learner's code, what to ``fix``."""

    code: str
    exercise: str
    sentence: str
    reread: str
    page: str = ""
    fix: str = ""


_ENTRIES = [
    # --- collect_parameters -------------------------------------------------------------------
    Entry(
        "not-recursive",
        "collect",
        "Stops at the direct children: parameters of grandchildren (a layer inside a block "
        "inside the model) are missing. A module owns everything registered below it, at any "
        "depth; recurse into every child module.",
        *_COLLECT,
    ),
    Entry(
        "by-attribute-name",
        "collect",
        "Finds parameters by attribute name (weight, bias): it misses a Parameter registered "
        "under another name, or takes a tensor called weight/bias that is not a Parameter. What "
        "makes a tensor a parameter is its registration (module._parameters), not its name.",
        *_COLLECT,
    ),
    Entry(
        "includes-buffers",
        "collect",
        "Collects buffers (running statistics, counters) as parameters. Buffers are state the "
        "module saves and updates itself; they get no gradient and the optimizer must never "
        "step them.",
        *_BUFFERS,
    ),
    Entry(
        "tied-twice",
        "collect",
        "Lists a shared (tied) parameter more than once: an optimizer built from the list "
        "would step it twice per update. Keep each tensor once (remember what you have seen, "
        "by identity), under the first name named_parameters() gives it.",
        *_COLLECT,
    ),
    Entry(
        "copies",
        "collect",
        "Returns copies, detached tensors or views instead of the Parameters themselves: an "
        'optimizer refuses a non-leaf view ("can\'t optimize a non-leaf Tensor") and writes '
        "through a copy never reach the model. Return the Parameter objects.",
        *_OPTIMIZER,
    ),
    Entry(
        "wrong-names",
        "collect",
        "The names differ from named_parameters(): each name is the dotted path of registration "
        "names from the model down to the parameter (for example 'block.inner.0.weight').",
        *_COLLECT,
    ),
    Entry(
        "wrong-order",
        "collect",
        "The order differs from named_parameters(): a module's own parameters come first, in "
        "registration order, then each child's, in registration order (pre-order).",
        *_COLLECT,
    ),
    Entry(
        "uses-builtin",
        "collect",
        "Calls the framework's own collection (named_parameters(), parameters() or "
        "state_dict()): the exercise is to rebuild it from the registries (_parameters, "
        "_modules).",
        *_COLLECT,
    ),
    Entry(
        "missing-parameters",
        "collect",
        "Leaves out parameters that named_parameters() lists, for example the model's own, or "
        "a frozen one (a Parameter with requires_grad=False is still a parameter).",
        *_COLLECT,
    ),
    Entry(
        "bad-return",
        "collect",
        "collect_parameters must return a list of (name, tensor) pairs.",
        *_COLLECT,
    ),
    # --- sgd_step -----------------------------------------------------------------------------
    Entry(
        "no-zero-grad",
        "sgd",
        "Gradients are carried over from the previous step: backward adds into .grad, so the "
        "update used the old gradient plus the new one. Zero the gradients before backward.",
        *_ACCUMULATE,
    ),
    Entry(
        "zero-after-backward",
        "sgd",
        "The gradients are zeroed between backward and the update, so the step does nothing. "
        "Zeroing belongs before backward.",
        *_ACCUMULATE,
    ),
    Entry(
        "tracked-update",
        "sgd",
        "The update is recorded by autograd: an in-place write to a parameter with grad mode "
        "on is refused (a leaf that requires grad), and an update that builds a graph over the "
        "parameters makes them non-leaf. Update inside torch.no_grad().",
        *_INPLACE,
    ),
    Entry(
        "rebinds-parameter",
        "sgd",
        "The model's parameters did not change in place: 'p = p - lr * p.grad' makes a new "
        "tensor and binds a name to it (or replaces the Parameter), so the model, and any "
        "optimizer holding its parameters, keep the old ones. Write into p in place under "
        "no_grad (p -= lr * p.grad, or p.sub_(...)).",
        *_OPTIMIZER,
    ),
    Entry(
        "data-update",
        "sgd",
        "Updates through .data. The values are right, but .data skips the version counter and "
        "autograd's checks: it is the unit's trap. Write to the parameter itself under "
        "torch.no_grad().",
        *_DATA,
    ),
    Entry(
        "updates-buffers",
        "sgd",
        "Steps buffers too: the update writes into buffers, which the optimizer does not own. "
        "Only parameters are stepped; the module updates its buffers itself.",
        *_OPTIMIZER,
    ),
    Entry(
        "wrong-sign",
        "sgd",
        "The update ascends: it adds the gradient instead of subtracting it (p -= lr * p.grad).",
        *_LOOP,
    ),
    Entry(
        "wrong-lr",
        "sgd",
        "The update is scaled wrongly: a step moves each parameter by exactly lr times its "
        "gradient.",
        *_LOOP,
    ),
    Entry(
        "loss-not-returned",
        "sgd",
        "Returns no loss, or the loss tensor itself: return loss.item(), a float; a tensor that "
        "requires grad keeps the whole step's graph alive.",
        *_LOOP,
    ),
    Entry(
        "wrong-loss",
        "sgd",
        "Returns a number that is not this batch's loss before the update: compute "
        "loss_fn(model(x), y) once and return its value.",
        *_LOOP,
    ),
    Entry(
        "wrong-update",
        "sgd",
        "The parameters moved, but not by minus lr times this batch's gradient: every "
        "parameter, and only parameters, take the step p -= lr * p.grad.",
        *_LOOP,
    ),
    # --- either exercise ----------------------------------------------------------------------
    Entry(
        "raised",
        "any",
        "Your function raised an exception.",
        *_YOUR_LINE,
    ),
    Entry(
        "syntax-error",
        "any",
        "Your file is not valid Python, so nothing in it could run.",
        *_YOUR_LINE,
    ),
    Entry(
        "load-error",
        "any",
        "Your file raised an exception while it was being loaded (before any function ran).",
        *_YOUR_LINE,
    ),
    Entry(
        "missing-function",
        "any",
        "Your file does not define the function this exercise grades.",
        *_STATEMENT,
    ),
    Entry(
        "wrong-signature",
        "any",
        "Your function cannot be called with the exercise's arguments.",
        *_STATEMENT,
    ),
    Entry(
        "timeout",
        "any",
        "Your file did not finish within the time limit: an endless loop or recursion?",
        "the loops and recursion in your file",
    ),
    # --- the environment, not the learner's code -------------------------------------------------
    Entry(
        "torch-missing",
        "any",
        "PyTorch cannot be imported by the Python that runs the grader, so nothing was graded: "
        "this is not a mistake in your file.",
        "",
        fix="install torch in this Python (pip install torch), or use `--engine ownership`",
    ),
    Entry(
        "grader-failed",
        "any",
        "The grader itself could not run in this Python, so nothing was graded: this is not a "
        "mistake in your file.",
        "",
        fix="check that `python -c 'import ownership'` works in this Python (numpy installed), "
        "or reinstall the ownership wheel",
    ),
    Entry(
        "missing-module",
        "any",
        "Your file imports a module that the Python running the grader does not have, so "
        "nothing was graded.",
        "",
        fix="install that module in this Python, or correct the name in your file",
    ),
]

#: Every code, in the order the report lists them.
CATALOGUE: dict[str, Entry] = {entry.code: entry for entry in _ENTRIES}


def diagnosis(code: str, detail: str = "", where: str = "") -> Diagnosis:
    """The diagnosis of ``code`` (``KeyError`` for an unknown code), with optional specifics.

    ``detail`` is appended to the catalogue's sentence (what was seen, e.g. a name); ``where``
    is a place in the learner's file (``"line 7: p = p - lr * p.grad"``).
    """
    entry = CATALOGUE[code]
    message = f"{entry.sentence} {detail}".strip()
    url = site_url(entry.page)
    return Diagnosis(code, message, entry.reread, where, url=url, fix=entry.fix)
