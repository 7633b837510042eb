"""The line of a write through a numpy array: a line tracer, on only while one is handed out.

numpy writes go around every hook torch and the engine offer, so the doctor cannot see them
happen. While a numpy array sharing the memory of a live saved tensor is out (``watch``), a line
tracer runs in the frames of the user's own files (:func:`~ownership.doctor.locate.is_user_file`)
and, at each of their line, call and return events, compares the saved tensor's memory with a copy
taken at the last check: the user line that ran last when the values changed without a version
bump is the write, kept in ``SaveRecord.numpy_writes``. A change made in a library called from a user line is put on that
line. The tracer is removed as soon as no such array is watched (the saved tensor died or its
backward ran) and when the run ends (:func:`stop`); any trace function set before it (a debugger,
coverage) keeps being called, and is restored.
"""

from __future__ import annotations

import linecache
import sys
import weakref
from types import FrameType
from typing import Any

import numpy as np

from ownership.doctor.findings import Place
from ownership.doctor.locate import is_user_file
from ownership.doctor.saves import SaveRecord

__all__ = ["check", "stop", "watch"]

_Trace = Any  # a trace function: (frame, event, arg) -> trace function or None


class _Watched:
    """A saved tensor's memory as numpy (``view``) and its values at the last check."""

    __slots__ = ("last", "rec", "version", "view")

    def __init__(self, rec: SaveRecord, view: np.ndarray[Any, Any]) -> None:
        self.rec = weakref.ref(rec)
        self.view = view
        self.last = view.copy()
        self.version = rec.alias._version


class _Tracer:
    """The tracer of one run: the watched arrays, the previous trace function, the last line."""

    def __init__(self) -> None:
        self.watched: list[_Watched] = []
        self.prev: _Trace = None
        self.on = False
        self.line: tuple[str, int, str] | None = None

    # ------------------------------------------------------------------ switching
    def start(self, frame: FrameType | None) -> None:
        self.prev = sys.gettrace()
        self.on = True
        sys.settrace(self.global_trace)
        while frame is not None:  # the frames already running get their trace directly
            if is_user_file(frame.f_code.co_filename) and not isinstance(frame.f_trace, _Local):
                frame.f_trace = _Local(self, frame.f_trace)
                if self.line is None:
                    self.line = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
            frame = frame.f_back

    def stop(self) -> None:
        if not self.on:
            return
        self.on = False
        self.watched.clear()
        self.line = None
        if sys.gettrace() == self.global_trace:
            sys.settrace(self.prev)
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if isinstance(frame.f_trace, _Local):
                frame.f_trace = frame.f_trace.prev
            frame = frame.f_back

    # ------------------------------------------------------------------ checking
    def check(self) -> None:
        """Note the current user line as a write on every watched tensor whose values changed
        since the last check; drop the ones no longer watched, and stop when none is left."""
        kept: list[_Watched] = []
        for w in self.watched:
            rec = w.rec()
            if rec is None or rec.numpy is None:
                continue
            kept.append(w)
            exact = w.view.dtype.kind in "fc"
            if not np.array_equal(w.view, w.last, equal_nan=exact):
                np.copyto(w.last, w.view)
                version, w.version = w.version, rec.alias._version
                if self.line is not None and version == w.version:  # not a visible write
                    file, line, func = self.line
                    text = linecache.getline(file, line).strip()
                    rec.numpy_writes.append(Place(file, line, func, text))
        self.watched = kept
        if not kept:
            self.stop()

    def event(self, frame: FrameType, event: str) -> None:
        self.check()
        if not self.on:
            return
        if event == "line":
            self.line = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        elif event == "return":  # back in the caller's line, if it is the user's
            back = frame.f_back
            if back is not None and is_user_file(back.f_code.co_filename):
                self.line = (back.f_code.co_filename, back.f_lineno, back.f_code.co_name)

    def global_trace(self, frame: FrameType, event: str, arg: Any) -> _Trace:
        prev = self.prev(frame, event, arg) if self.prev is not None else None
        if not self.on or not is_user_file(frame.f_code.co_filename):
            return prev
        self.event(frame, event)
        return _Local(self, prev) if self.on else prev


class _Local:
    """The local trace function of a user frame: the tracer's check, then the previous one's."""

    __slots__ = ("prev", "tracer")

    def __init__(self, tracer: _Tracer, prev: _Trace) -> None:
        self.tracer = tracer
        self.prev = prev

    def __call__(self, frame: FrameType, event: str, arg: Any) -> _Trace:
        if self.prev is not None:
            self.prev = self.prev(frame, event, arg)
        if not self.tracer.on:
            return self.prev
        self.tracer.event(frame, event)
        return self if self.tracer.on else self.prev


_TRACER = _Tracer()


def watch(rec: SaveRecord, view: Any) -> None:
    """Trace the user's lines while ``rec`` (whose memory ``view`` shows as a numpy array) has a
    numpy alias out, noting in ``rec.numpy_writes`` the lines that change it."""
    if not isinstance(view, np.ndarray):
        return
    _TRACER.watched = [w for w in _TRACER.watched if w.rec() is not rec]
    _TRACER.watched.append(_Watched(rec, view))
    if not _TRACER.on:
        _TRACER.start(sys._getframe(1))


def check() -> None:
    """Note the writes made since the last traced line (call before comparing the values)."""
    if _TRACER.on:
        _TRACER.check()


def stop() -> None:
    """Remove the tracer and forget every watched array (the end of a run)."""
    _TRACER.stop()
