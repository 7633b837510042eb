"""torch's warnings that appear once per program (``TORCH_WARN_ONCE``), and the switch that makes
them appear every time (``torch.set_warn_always``).

>>> set_warn_always(True); is_warn_always_enabled()
True
>>> set_warn_always(False); is_warn_always_enabled()
False
"""

from __future__ import annotations

import warnings

__all__ = ["is_warn_always_enabled", "set_warn_always", "warn_once"]

_ALWAYS = [False]
_GIVEN: set[str] = set()
"""The messages already given (each at most once per program unless warn-always is on)."""


def set_warn_always(b: bool) -> None:
    """``torch.set_warn_always``: with ``True``, a once-per-program warning is given every time."""
    _ALWAYS[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """``torch.is_warn_always_enabled``."""
    return _ALWAYS[0]


def warn_once(message: str, stacklevel: int = 2, site: str | None = None) -> None:
    """Give ``message`` as a ``UserWarning`` the first time in this program (every time while
    warn-always is on), as torch's ``TORCH_WARN_ONCE``: once per ``site``, the place that
    warns (by default the message itself; a message that prints values names its site)."""
    key = message if site is None else site
    if key in _GIVEN and not _ALWAYS[0]:
        return
    _GIVEN.add(key)
    warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)
