"""The learner's file: load it, find the graded function, call it, and explain what it raised.

Everything that can go wrong on the learner's side becomes a :class:`LearnerProblem` holding
one diagnosis (never a traceback of the grader): a syntax error, an exception while the file
loads (an import of a module this Python lacks is the environment's ``missing-module``), a
missing function, a signature the exercise's arguments do not fit, or an exception
raised by the function, located at the last line of *the learner's file* in the traceback.
:func:`meaning` says what the common exceptions of these exercises mean.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import sys
import traceback
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ownership.grade.catalogue import diagnosis
from ownership.grade.report import FUNCTIONS, Diagnosis

__all__ = ["PARAMETERS", "LearnerProblem", "call", "load", "meaning"]

#: The parameters each exercise's function takes.
PARAMETERS = {"collect": ("module",), "sgd": ("model", "loss_fn", "x", "y", "lr")}


class LearnerProblem(Exception):
    """The learner's code cannot be graded further; ``diagnosis`` says why."""

    def __init__(self, found: Diagnosis) -> None:
        super().__init__(found.message)
        self.diagnosis = found


# (pattern of "ExceptionType: message", what it means in these exercises, code)
_MEANINGS: list[tuple[str, str, str]] = [
    (
        r"a leaf Variable that requires grad is being used in an in-place operation",
        "an in-place write to a parameter while autograd records: put the update inside "
        "torch.no_grad().",
        "tracked-update",
    ),
    (
        r"unsupported operand type\(s\) for .*'NoneType'|'NoneType' object has no attribute",
        "a value here is None: a .grad is None before the first backward, and after "
        "zero_grad() (which sets it to None), or a function returned nothing.",
        "raised",
    ),
    (
        r"can't optimize a non-leaf Tensor",
        "an optimizer takes only leaf tensors: the Parameters themselves, not views or "
        "results computed from them.",
        "raised",
    ),
    (
        r"modified by an inplace operation",
        "backward needed a value that was overwritten in place after it was saved (the "
        "version counter caught it).",
        "raised",
    ),
    (
        r"does not require grad and does not have a grad_fn",
        "backward was called on a tensor with no history: a detach, or a computation under "
        "no_grad, cut the loss from the parameters.",
        "raised",
    ),
    (
        r"backward through the graph a second time",
        "backward ran twice through one graph: run the forward pass again for a second backward.",
        "raised",
    ),
    (
        r"^RecursionError",
        "the recursion never reaches its end: does each call move on to the children, and "
        "skip what it has already visited?",
        "raised",
    ),
    (
        r"cannot assign .* as parameter",
        "a registered parameter can only be replaced by a Parameter (or None); to update it, "
        "write into it in place under torch.no_grad().",
        "raised",
    ),
    (
        r"^SystemExit",
        "your code ends the program (exit() or sys.exit()): a function returns instead.",
        "raised",
    ),
    (r"^NotImplementedError", "the function is not written yet (the starter's stub).", "raised"),
]


def meaning(error: BaseException) -> tuple[str, str]:
    """``(what it means, code)`` for an exception the learner's code raised."""
    text = f"{type(error).__name__}: {error}"
    for pattern, said, code in _MEANINGS:
        if re.search(pattern, text):
            return said, code
    return "", "raised"


def _where(error: BaseException, path: str) -> str:
    """``line N: source`` of the deepest frame in the learner's file ('' if none)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    if not frames:
        return ""
    frame = frames[-1]
    return f"line {frame.lineno} of your file: {(frame.line or '').strip()}"


def _explain(error: BaseException, path: str, code: str = "") -> LearnerProblem:
    said, found = meaning(error)
    code = code or found
    first = (str(error).strip().splitlines() or [""])[0]
    detail = f"{type(error).__name__}: {first}".rstrip(": ")
    if code == "tracked-update":
        detail = ""
    elif said:
        detail += f" — {said}"
    return LearnerProblem(diagnosis(code, detail, _where(error, path)))


def load(path: Path, exercise: str) -> Callable[..., Any]:
    """Run the learner's file as a fresh module; return the exercise's function.

    Raises :class:`LearnerProblem` for a syntax error, an exception while loading, a missing
    function, or one whose signature does not take the exercise's arguments.
    """
    name = FUNCTIONS[exercise]
    source = path.read_text(encoding="utf-8")
    filename = str(path)
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as error:
        where = f"line {error.lineno} of your file: {(error.text or '').strip()}"
        raise LearnerProblem(diagnosis("syntax-error", f"({error.msg})", where)) from None
    module = types.ModuleType("learner_solution")
    module.__file__ = filename
    sys.path.insert(0, str(path.parent))  # the learner's own helper modules, as `python FILE` finds
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, module.__dict__)
    except ModuleNotFoundError as error:  # not installed (or misspelled): the environment's
        found = diagnosis("missing-module", f"({error})", _where(error, filename))
        raise LearnerProblem(found) from None
    except (Exception, SystemExit) as error:
        raise _explain(error, filename, "load-error") from None
    finally:
        sys.path.remove(str(path.parent))
    function = module.__dict__.get(name)
    if not callable(function):
        raise LearnerProblem(diagnosis("missing-function", f"Define {name}."))
    wanted = PARAMETERS[exercise]
    try:
        inspect.signature(function).bind(*wanted)
    except TypeError:
        shown = f"{name}{inspect.signature(function)}"
        expected = f"{name}({', '.join(wanted)})"
        raise LearnerProblem(
            diagnosis("wrong-signature", f"It is {shown}; the exercise calls {expected}.")
        ) from None
    except ValueError:
        pass  # no signature to inspect (a builtin): the call itself will tell
    return function  # type: ignore[no-any-return]


def call(function: Callable[..., Any], path: Path, *args: Any) -> Any:
    """Call the learner's function; an exception becomes a :class:`LearnerProblem`."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the learner's warnings are not the grade
            return function(*args)
    except (Exception, SystemExit) as error:
        raise _explain(error, str(path)) from None
