"""Run a script unchanged under the doctor's watchers and collect what they found.

:func:`diagnose` runs ``SCRIPT.py`` with ``runpy`` as ``__main__`` (``sys.argv`` set to the script
and its arguments, the script's folder first on ``sys.path``), with the ownership watcher on from
the start and the torch watcher switched on once the script has imported torch (torch is never
imported otherwise). The script's own exception or ``sys.exit`` status is kept: the
:class:`Diagnosis` holds its traceback text, unchanged, and its exit status.
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
from ownership.doctor.findings import Finding
from ownership.doctor.ledger import Ledger
from ownership.doctor.locate import user_place
from ownership.doctor.ownership_watch import OwnershipWatch

__all__ = ["Diagnosis", "diagnose"]


@dataclass
class Diagnosis:
    """The result of one run: findings, the script's exit status and error (its traceback text,
    as Python prints it, or None), and the engines the script used."""

    script: str
    findings: list[Finding]
    exit_status: int
    error: str | None = None
    engines: list[str] = field(default_factory=list)

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


def _watcher_frame(frame: traceback.FrameSummary) -> bool:
    """A frame the watchers added: the doctor's own, or torch's dispatch to a mode."""
    return (
        frame.filename.startswith(_DOCTOR + os.sep)
        or frame.filename.endswith(os.path.join("torch", "overrides.py"))
        or "= handle_torch_function(" in (frame.line or "")
        or (frame.line or "").startswith("return handle_torch_function(")
    )


def _script_traceback(exc: BaseException, script: str) -> str:
    """Python's traceback text for ``exc`` as the script alone would print it: from the script's
    first frame, without the frames of the doctor's watchers; the message is unchanged."""
    tb: TracebackType | None = exc.__traceback__
    real = os.path.realpath(script)
    while tb is not None and os.path.realpath(tb.tb_frame.f_code.co_filename) != real:
        tb = tb.tb_next
    te = traceback.TracebackException(type(exc), exc, tb or exc.__traceback__)
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if not _watcher_frame(f)])
    return "".join(te.format())


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
    try:
        namespace = runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        status = _status(exc.code)
    except BaseException as exc:  # the script's own failure: kept, reported, not raised
        status, error = 1, _script_traceback(exc, path)
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
    findings = ledger.finish()  # while the script's objects are alive
    del namespace
    return Diagnosis(path, findings, status, error, engines)
