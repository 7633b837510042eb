"""Which line of the user's own code is running: the innermost frame outside the libraries.

A frame is the user's when its file lies outside the ownership package, the torch package,
Python's standard library and the installed packages (site-packages). The doctor points every
finding at such a line: the line in the user's module that called ``nn.ReLU(inplace=True)``,
never a line inside torch.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
from types import FrameType

from ownership.doctor.findings import Place

__all__ = ["is_user_file", "user_place"]

_OWNERSHIP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _library_roots() -> tuple[str, ...]:
    roots = {_OWNERSHIP}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(os.path.realpath(path))
    spec = importlib.util.find_spec("torch")  # finds torch without importing it
    if spec is not None and spec.submodule_search_locations:
        roots.update(os.path.realpath(p) for p in spec.submodule_search_locations)
    return tuple(sorted(roots))


_ROOTS = _library_roots()
_verdicts: dict[str, bool] = {}


def is_user_file(filename: str) -> bool:
    """Whether ``filename`` is the user's own code (not a library, not ``<frozen ...>``)."""
    verdict = _verdicts.get(filename)
    if verdict is None:
        if filename.startswith("<"):
            verdict = False
        else:
            path = os.path.realpath(filename)
            verdict = not any(path == r or path.startswith(r + os.sep) for r in _ROOTS)
        _verdicts[filename] = verdict
    return verdict


def _line_text(filename: str, lineno: int) -> str:
    import linecache

    return linecache.getline(filename, lineno).strip()


def user_place(frame: FrameType | None = None) -> Place | None:
    """The innermost frame of the user's code on the current stack (from ``frame`` outwards),
    or None when no frame is the user's."""
    f: FrameType | None = frame if frame is not None else sys._getframe(1)
    while f is not None:
        filename = f.f_code.co_filename
        if is_user_file(filename):
            lineno = f.f_lineno
            return Place(filename, lineno, f.f_code.co_name, _line_text(filename, lineno))
        f = f.f_back
    return None
