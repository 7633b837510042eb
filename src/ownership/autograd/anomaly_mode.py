"""``torch.autograd.anomaly_mode``: torch's switches, plus the lines of the in-place writes in the
version error.

``detect_anomaly(check_nan=True)`` and ``set_detect_anomaly(mode, check_nan=True)`` have torch's
signatures and behaviour: ``detect_anomaly`` warns when made and switches the mode on for its
block; ``set_detect_anomaly`` switches at once (usable as a plain call or a ``with``) and restores
the previous mode on exit. While the mode is on, as in torch:

- each saved tensor remembers the Python stack of the forward op that saved it; when its version
  check fails, the engine warns ``Error detected in <node>. Traceback of forward call that caused
  the error:`` with that stack (torch warns this way for any failing node; the engine does for the
  version error) and the error's hint is torch's anomaly-mode hint;
- with ``check_nan``, a backward function that returns NaN raises torch's RuntimeError.

Where the engine says more than torch: every in-place write made while the mode is on records
the line that made it on the written storage's version counter, and the version error lists the
writes made since the tensor was saved, after torch's text::

    ... Good luck!
    In-place writes since it was saved (ownership's anomaly mode; torch does not list them):
      version 1: File "train.py", line 4, in <module>
        h.mul_(2)

The state is process-wide, as torch's is. It is core's seam filled
(:class:`ownership.core.observers.Anomaly`, which :func:`ownership.installation.install` sets to
this module's state): core asks it for the forward stack a saved tensor keeps, the warning of a
failing unpack, the NaN check of a node's results and the writes the version error lists; the
switches and the recording of the writes are here.
"""

from __future__ import annotations

import os
import traceback
import warnings
from typing import Any

import numpy as np

from ownership.core import observers

__all__ = [
    "detect_anomaly",
    "format_writes",
    "forward_trace",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]

WRITES_TITLE = (
    "In-place writes since it was saved (ownership's anomaly mode; torch does not list them):"
)
#: How many writes a version counter remembers (the most recent ones).
MAX_WRITES = 32

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # ownership/


class _State(observers.Anomaly):
    """The mode's state, which core reads through its seam
    (:data:`ownership.core.observers.ANOMALY`)."""

    enabled = False
    check_nan = True

    def forward_trace(self) -> list[traceback.FrameSummary]:
        """The forward call's stack a saved tensor keeps: :func:`forward_trace`."""
        return forward_trace()

    def writes_since(self, counter: Any, since: int) -> str:
        """The writes the version error lists: :func:`format_writes`."""
        return format_writes(counter, since)

    def check_result(self, node_name: str, grads: Any) -> None:
        """torch's anomaly check: a backward function must not return NaN."""
        for i, g in enumerate(grads):
            if g is not None and g.dtype.is_floating_point and np.isnan(g._data).any():
                raise RuntimeError(
                    f"Function '{node_name}' returned nan values in its {i}th output."
                )

    def on_backward_error(self, node_name: str, trace: list[traceback.FrameSummary]) -> None:
        """torch's anomaly-mode warning naming the forward call of the failing node."""
        text = "".join(traceback.format_list(trace)).rstrip("\n")
        warnings.warn(
            f"Error detected in {node_name}. Traceback of forward call that caused the error:\n"
            f"{text}",
            UserWarning,
            stacklevel=2,
        )


_state = _State()
MODE: observers.Anomaly = _state
"""The mode's state, put in core's seam (:data:`ownership.core.observers.ANOMALY`) by
:func:`ownership.installation.install`."""


def is_anomaly_enabled() -> bool:
    """Whether anomaly mode is on."""
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode, when on, checks backward results for NaN."""
    return _state.check_nan


def forward_trace() -> list[traceback.FrameSummary]:
    """The current Python stack without the engine's own frames, outermost first."""
    return [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_PACKAGE)]


def _record_write(tensor: Any, op_name: str) -> None:
    counter = tensor._version_counter
    writes = counter.writes
    if writes is None:
        writes = counter.writes = []
    writes.append((counter.value, forward_trace()))
    del writes[:-MAX_WRITES]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switch anomaly mode (``torch.set_anomaly_enabled``)."""
    _state.enabled = bool(enabled)
    _state.check_nan = bool(check_nan)
    if _state.enabled and _record_write not in observers.WRITES:
        observers.WRITES.append(_record_write)
    elif not _state.enabled and _record_write in observers.WRITES:
        observers.WRITES.remove(_record_write)


class detect_anomaly:
    """Anomaly mode on inside the block (torch's ``detect_anomaly``; warns when made)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. "
            "This mode will increase the runtime "
            "and should only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        """Switch anomaly mode on."""
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        """Restore the mode found when the object was made."""
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Switch anomaly mode at once; as a ``with`` block, restore it on exit (torch's behaviour)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        """Nothing: the switch happened when the object was made."""

    def __exit__(self, *args: object) -> None:
        """Restore the mode found when the object was made."""
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def format_writes(counter: Any, since: int) -> str:
    """The writes recorded on ``counter`` after version ``since``, as the error's extra lines
    (empty when none was recorded)."""
    writes = [(v, trace) for v, trace in counter.writes or () if v > since]
    if not writes:
        return ""
    lines = [WRITES_TITLE]
    for version, trace in writes:
        where = trace[-1] if trace else None
        if where is None:
            lines.append(f"  version {version}: (no Python frame)")
            continue
        lines.append(
            f'  version {version}: File "{where.filename}", line {where.lineno}, in {where.name}'
        )
        if where.line:
            lines.append(f"    {where.line.strip()}")
    return "\n".join(lines)
