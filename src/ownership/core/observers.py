"""Hook points for tools layered above the engine: the engine calls these lists, never imports them.

Tools (anomaly mode, the doctor) append to a list and remove themselves when done; an observer
must not raise. Op calls: :func:`ownership.core.op_registry.watch`. :data:`ANOMALY` is anomaly
mode's seam, off in core (:class:`Anomaly`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "ACCUMULATIONS",
    "ANOMALY",
    "BEFORE_WRITES",
    "SAVES",
    "WRITES",
    "Anomaly",
    "before_write",
]

#: Called before each in-place write: ``observer(tensor)`` (``allow_mutation_on_saved_tensors``).
BEFORE_WRITES: list[Callable[[Any], None]] = []
#: Called after each in-place write's version bump: ``observer(tensor, node_name)``.
WRITES: list[Callable[[Any, str], None]] = []
#: Called after each tensor saved for backward: ``observer(saved_tensor)``.
SAVES: list[Callable[[Any], None]] = []
#: Called after a gradient was accumulated into a leaf's ``.grad``: ``observer(leaf)``.
ACCUMULATIONS: list[Callable[[Any], None]] = []


def before_write(tensor: Any) -> None:
    """Call the :data:`BEFORE_WRITES` observers on ``tensor``, about to be written in place."""
    for observe in list(BEFORE_WRITES):
        observe(tensor)


class Anomaly:
    """Anomaly mode as core calls it, off: the seam :data:`ANOMALY` holds one."""

    enabled = False  # on: saved tensors keep forward_trace, the version error gives the hint
    check_nan = False  # on: backward passes each node's results to check_result

    def forward_trace(self) -> Any:
        """The stack of the forward call, kept by a tensor saved while the mode is on."""
        return None

    def writes_since(self, counter: Any, since: int) -> str:
        """The lines the version error adds: the writes on ``counter`` since ``since``."""
        return ""

    def check_result(self, node_name: str, grads: Any) -> None:
        """Called by the backward loop with each node's results while ``check_nan`` is on."""

    def on_backward_error(self, node_name: str, trace: Any) -> None:
        """Called when unpacking a saved tensor of node ``node_name`` fails."""


#: Anomaly mode's seam (:mod:`ownership.autograd.anomaly_mode`'s state once installed).
ANOMALY: Anomaly = Anomaly()
