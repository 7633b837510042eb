"""Run one program under torch and under ownership and insist that a learner would see the same.

A *program* is a function of one argument, the engine module (``torch`` or ``ownership``), that
returns anything made of tensors, numbers, strings, ``None``, dtypes, ``grad_fn`` nodes, tuples,
lists and dicts. :func:`same` runs it under both engines and fails the test if they disagree.

This module is a thin test-side wrapper: every rule (what the facts of a result are, how two
facts are compared, how warnings are caught and compared) lives in :mod:`ownership.compare`. In
short, :func:`same` compares tensors' values (with tolerance), dtype, shape, ``requires_grad``,
``is_leaf``, ``grad_fn`` name, ``_version`` and Parameter-ness; plain data by type and value;
a raised exception by class name and message; and the warnings emitted while the program ran.
A program that raises under torch is a test of that error, unless the error says the program
itself is broken (:data:`BROKEN`): then :func:`same` fails, since both engines would raise it
and the test would pass without testing anything.
It returns torch's facts, so a test can also check them against a literal: dtypes and nodes come
back as :class:`~ownership.compare.Named` (``Named("torch.float32")``, ``Named("<MulBackward0>")``),
tuples (``torch.Size`` included) as tuples, and an exception as :class:`Raised`.

Set ``OWNERSHIP_DIFF_SELF=1`` to run the second side with torch too: this checks that a test is
right about torch before the engine exists (with ``torch.set_warn_always(True)`` during the call,
so that a warning torch gives once per process reaches both sides).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import torch

from ownership.compare import Named, Program, Raised, Run, TensorFacts, facts, insist_agree, run
from ownership.tolerance import DEFAULT, OPS, Tolerance

__all__ = [
    "BROKEN",
    "OPS",
    "Named",
    "Program",
    "Raised",
    "Run",
    "TensorFacts",
    "Tolerance",
    "error_of",
    "every_warning",
    "facts",
    "grad_of",
    "run",
    "same",
]


@contextlib.contextmanager
def every_warning() -> Iterator[None]:
    """Both engines give every warning every time (``set_warn_always``), those torch gives once
    per process (``TORCH_WARN_ONCE``: ``x.T``, ``x.mT``), which an earlier test may have used
    up, included; each engine's setting is restored after."""
    engine = _ownership()
    before = torch.is_warn_always_enabled(), engine.is_warn_always_enabled()
    torch.set_warn_always(True)
    engine.set_warn_always(True)
    try:
        yield
    finally:
        torch.set_warn_always(before[0])
        engine.set_warn_always(before[1])


# Errors that mean the program is broken (a typo, a missing import, an attribute torch does not
# have), not that it tests torch's refusal: a program that means to raise one says so (``raises=``).
BROKEN = (
    "NameError",
    "UnboundLocalError",
    "SyntaxError",
    "ImportError",
    "ModuleNotFoundError",
    "AttributeError",
)


def _ownership() -> ModuleType:
    """The engine under test: ``ownership``, or ``torch`` when ``OWNERSHIP_DIFF_SELF=1``."""
    if os.environ.get("OWNERSHIP_DIFF_SELF") == "1":
        return torch
    import ownership

    return ownership


def same(
    program: Program,
    *,
    tolerance: Tolerance = DEFAULT,
    message: str | None = "equal",
    warnings: bool = True,
    raises: str | None = None,
) -> Any:
    """Assert that ``program`` behaves the same under torch and ownership; return torch's facts.

    A program that raises one of the :data:`BROKEN` errors under torch fails the test (it is a
    broken program, not a test of an error), unless the test names that class in ``raises``;
    ``raises`` also insists that torch raises exactly that class.

    Floating-point values agree by ``tolerance``'s rule (:mod:`ownership.tolerance`: from their
    dtype, the magnitude of the whole tensor and the computation; a test that loosens it says
    why). ``message`` says how an exception's message is compared: ``"equal"`` (the default), a regular
    expression both messages must match, or ``None`` (class only). ``warnings=False`` skips the
    comparison of emitted warnings; a test that uses it must say why.
    """
    engine = _ownership()
    # Both sides torch (OWNERSHIP_DIFF_SELF=1): torch's warn-once warnings (TORCH_WARN_ONCE) would
    # be used up by the first side, so both sides run with torch.set_warn_always(True).
    warned_always = torch.is_warn_always_enabled()
    torch.set_warn_always(warned_always or engine is torch)
    try:
        runs = {"torch": run(program, torch), "ownership": run(program, engine)}
    finally:
        torch.set_warn_always(warned_always)
    _insist_program_runs_under_torch(runs["torch"].facts, raises)
    insist_agree(runs, tolerance=tolerance, message=message, compare_warnings=warnings)
    return runs["torch"].facts


def _insist_program_runs_under_torch(torch_facts: Any, raises: str | None) -> None:
    """Fail when torch raised a :data:`BROKEN` error the test did not name, or not ``raises``."""
    kind = torch_facts.kind if isinstance(torch_facts, Raised) else None
    if raises is not None:
        assert kind == raises, f"the program should raise {raises} under torch: {torch_facts}"
    else:
        assert kind not in BROKEN, f"the program is broken under torch: {torch_facts}"


def grad_of(x: Any) -> Any:
    """``x.grad`` cloned (or ``None``), for a program to return: the clone keeps the gradient's
    values, dtype and graph but not its ``_version``, which is an engine artefact (see
    support/gradients.py)."""
    return None if x.grad is None else x.grad.clone()


def error_of(action: Any) -> str | None:
    """The message of the RuntimeError ``action()`` raises, or ``None``: a program's way of
    recording an ``assertRaises(RuntimeError, action)`` and going on."""
    try:
        action()
    except RuntimeError as e:
        return str(e)
    return None
