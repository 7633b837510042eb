"""Run a script unchanged under the doctor's watchers and collect what they found.

:func:`diagnose` runs ``SCRIPT.py`` with ``runpy`` as ``__main__`` (``sys.argv`` set to the script
and its arguments, the script's folder first on ``sys.path``), with the ownership watcher on from
the start and the torch watcher switched on once the script has imported torch (torch is never
imported otherwise). The script's own exception or ``sys.exit`` status is kept: the
:class:`Diagnosis` holds its traceback text (as Python prints it, without the interpreter's
``runpy`` frames and the watchers'), its exit status, and the line of the script where it stopped.
A script that stopped before any tensor operation ran (a ``SyntaxError``, an ``import torch``
that fails) was not checked at all: the :class:`Diagnosis`'s ``checked`` is False, and its
traceback keeps only the frames of the user's own files.
"""

from __future__ import annotations

import builtins
import os
import runpy
import sys
import traceback
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from types import TracebackType
from typing import Any

from ownership.doctor import numpy_lines
from ownership.doctor.findings import Finding, Place
from ownership.doctor.ledger import Ledger
from ownership.doctor.locate import is_user_file, user_place
from ownership.doctor.ownership_watch import OwnershipWatch

__all__ = ["Diagnosis", "diagnose"]


@dataclass
class Diagnosis:
    """The result of one run: findings, the script's exit status and error (its traceback text,
    as Python prints it, or None), the engines the script used, whether any tensor operation ran
    (``checked``: False means the doctor saw nothing to check), and the line of the script where
    an exception or a ``sys.exit`` with a non-zero status stopped it (``stopped_at``)."""

    script: str
    findings: list[Finding]
    exit_status: int
    error: str | None = None
    engines: list[str] = field(default_factory=list)
    checked: bool = True
    stopped_at: Place | None = None

    def codes(self) -> list[str]:
        """The findings' codes, in order."""
        return [f.code for f in self.findings]


class _TorchImportWatch:
    """Calls ``on_torch`` once, when an import statement of the script has made torch available."""

    def __init__(self, on_torch: Any) -> None:
        self.on_torch = on_torch
        self.original = builtins.__import__
        self.depth = 0
        self.done = False

    def __call__(self, name: str, *args: Any, **kwargs: Any) -> Any:
        had_torch = "torch" in sys.modules
        self.depth += 1
        try:
            return self.original(name, *args, **kwargs)
        finally:
            self.depth -= 1
            torch_now = name.partition(".")[0] == "torch" or not had_torch
            if not self.done and self.depth == 0 and "torch" in sys.modules and torch_now:
                self.done = True
                self.on_torch()


_DOCTOR = os.path.dirname(os.path.abspath(__file__))


_WATCHED = os.path.join(os.path.dirname(_DOCTOR), "core", "op_registry.py")
"""The file of the op table's observer point, whose ``watched`` frame the watch adds."""


def _watcher_frame(frame: traceback.FrameSummary) -> bool:
    """A frame the watchers added: the doctor's own, the op table's observer point
    (:func:`ownership.core.op_registry.watch`), or torch's dispatch to a mode."""
    return (
        frame.filename.startswith(_DOCTOR + os.sep)
        or (frame.filename == _WATCHED and frame.name == "watched")
        or frame.filename.endswith(os.path.join("torch", "overrides.py"))
        or "= handle_torch_function(" in (frame.line or "")
        or (frame.line or "").startswith("return handle_torch_function(")
    )


def _script_traceback(exc: BaseException, script: str, users_only: bool) -> str:
    """Python's traceback text for ``exc`` as the script alone would print it: from the script's
    first frame, without the frames of the doctor's watchers nor the interpreter's own
    (``<frozen runpy>``: a ``SyntaxError`` of the script shows no frame, as Python shows it);
    with ``users_only``, only the frames of the user's files. The message is unchanged."""
    tb: TracebackType | None = exc.__traceback__
    real = os.path.realpath(script)
    while tb is not None and os.path.realpath(tb.tb_frame.f_code.co_filename) != real:
        tb = tb.tb_next
    te = traceback.TracebackException(type(exc), exc, tb)
    te.stack = traceback.StackSummary.from_list(
        [
            f
            for f in te.stack
            if not _watcher_frame(f)
            and not f.filename.startswith("<frozen ")
            and (is_user_file(f.filename) or not users_only)
        ]
    )
    return "".join(te.format())


def _stopped_at(exc: BaseException, script: str) -> Place | None:
    """The line of ``script`` where ``exc`` stopped it: its innermost frame in the script, or
    the place of the script's own ``SyntaxError``; None when the script has no such line."""
    real = os.path.realpath(script)
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if os.path.realpath(f.filename) == real and f.lineno is not None
    ]
    if frames:
        f = frames[-1]
        return Place(script, f.lineno or 0, f.name, (f.line or "").strip())
    if (
        isinstance(exc, SyntaxError)
        and exc.filename
        and exc.lineno
        and os.path.realpath(exc.filename) == real
    ):
        return Place(script, exc.lineno, "<module>", (exc.text or "").strip())
    return None


def _at_the_users_line(show: Any) -> Any:
    """``warnings.showwarning`` that shows a warning raised from inside a watcher (torch's C++
    warnings name the nearest Python frame, a mode's handler) at the user's line instead."""

    def shown(message: Any, category: Any, filename: str, lineno: int, *args: Any) -> Any:
        if filename.startswith(_DOCTOR + os.sep):
            place = user_place()
            if place is not None:
                filename, lineno = place.file, place.line
        return show(message, category, filename, lineno, *args)

    return shown


def _status(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def diagnose(script: str | PurePath, args: Sequence[str] = ()) -> Diagnosis:
    """Run ``script`` with ``args`` under the doctor and return what it found.

    The script runs in this process, as ``__main__``; every hook, mode and wrapper the doctor
    installed is removed before this returns, also when the script fails.
    """
    path = os.path.abspath(os.fspath(script))
    ledger = Ledger()
    own = OwnershipWatch(ledger)
    watches: list[Any] = [own]

    def torch_imported() -> None:
        from ownership.doctor.torch_watch import TorchWatch

        watches.append(TorchWatch(ledger))

    importer = _TorchImportWatch(torch_imported)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(path))
    builtins.__import__ = importer
    show = warnings.showwarning
    warnings.showwarning = _at_the_users_line(show)
    status, error, namespace = 0, None, None
    stopped: BaseException | None = None
    try:
        namespace = runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        status = _status(exc.code)
        stopped = exc if status else None
    except BaseException as exc:  # the script's own failure: kept, reported, not raised
        status, stopped = 1, exc
    finally:
        builtins.__import__ = importer.original
        warnings.showwarning = show
        sys.argv, sys.path[:] = saved_argv, saved_path
        numpy_lines.stop()
        for watch in reversed(watches):
            watch.stop()
    engines = ["torch"] if len(watches) > 1 else []
    if own.used:
        engines.append("ownership")
    checked = own.used or any(getattr(w, "ran", False) for w in watches)
    where = None
    if stopped is not None:
        where = _stopped_at(stopped, path)
        if not isinstance(stopped, SystemExit):
            error = _script_traceback(stopped, path, users_only=not checked)
        stopped = None  # its traceback holds the script's frames
    findings = ledger.finish()  # while the script's objects are alive
    del namespace
    return Diagnosis(path, findings, status, error, engines, checked, where)
