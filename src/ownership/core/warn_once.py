"""torch's once-per-program warnings (``TORCH_WARN_ONCE``) and ``torch.set_warn_always``.

>>> set_warn_always(True); is_warn_always_enabled()
True
>>> set_warn_always(False); is_warn_always_enabled()
False
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = [
    "is_warn_always_enabled",
    "outside_level",
    "set_warn_always",
    "warn_at_user",
    "warn_once",
]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

_ALWAYS = [False]
_GIVEN: set[str] = set()  # the messages (or sites) already given


def set_warn_always(b: bool) -> None:
    """``torch.set_warn_always``: with ``True``, a once-per-program warning is given every time."""
    _ALWAYS[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """``torch.is_warn_always_enabled``."""
    return _ALWAYS[0]


def warn_once(message: str, stacklevel: int = 2, site: str | None = None) -> None:
    """Give ``message`` as a ``UserWarning`` the first time per ``site`` (default: the message),
    every time while warn-always is on, as torch's ``TORCH_WARN_ONCE``."""
    key = message if site is None else site
    if not _ALWAYS[0]:  # a warning given while warn-always is on does not use up the once
        if key in _GIVEN:
            return
        _GIVEN.add(key)
    warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)


def outside_level() -> int:
    """The ``stacklevel`` of :func:`warn_once`, given by its caller, that names the first frame
    outside ownership's own files: the user's call, whatever frames ownership puts between (a
    method called through the op table, the table's watch)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn_at_user(message: str, category: type[Warning] = UserWarning) -> None:
    """Give ``message`` as torch's C++ code gives a warning (``TORCH_WARN``): at the user's
    line, the first frame outside ownership's own files, however many engine frames lie
    between (:func:`outside_level`)."""
    warnings.warn(message, category, stacklevel=outside_level())
