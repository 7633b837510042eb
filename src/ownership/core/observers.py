"""Hook points for tools layered above the engine: the engine calls these lists, never imports them.

Four events, each raised from the one place it happens:

- :data:`BEFORE_WRITES`: before an in-place write (:func:`before_write`, called by
  :func:`ownership.core.inplace_rules.run_inplace` at its step 4, by the in-place view ops, the
  resizes and ``out=``), called as ``observer(tensor)``: ``allow_mutation_on_saved_tensors``
  (:mod:`ownership.autograd.graph`) clones there the saved tensors the write would change;
- :data:`WRITES`: after every in-place write has bumped the version
  (:func:`ownership.ops.inplace.run_inplace`), called as ``observer(tensor, node_name)``, the
  name of the op's backward node (``MulBackward0``, ``ZeroBackward0``), which names the op;
- :data:`SAVES`: after a tensor is saved for backward (:class:`ownership.core.autograd.saved.SavedTensor`),
  called as ``observer(saved)``;
- :data:`ACCUMULATIONS`: after a gradient was summed into a leaf's ``.grad``
  (:func:`ownership.core.autograd.engine`'s ``AccumulateGrad``), called as ``observer(leaf)``.

Every op call (a Tensor method's, a ``torch`` function's, an operator's) passes one observer
point of its own, the op table: :func:`ownership.core.op_registry.watch`.

Anomaly mode (:mod:`ownership.autograd.anomaly_mode`) and the doctor (:mod:`ownership.doctor`)
append to these lists and remove themselves when done. While a list is empty an event costs one
truth test. An observer must not raise: its exception would reach the user's program.

One seam more, :data:`ANOMALY`, is anomaly mode's (torch's ``detect_anomaly``): what the saved
tensors (:mod:`ownership.core.autograd.saved`), the nodes and the backward loop ask of it, off in
core (:class:`Anomaly`); :func:`ownership.installation.install` puts the state of
:mod:`ownership.autograd.anomaly_mode` there, whose switches turn it on.
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

#: Called before each in-place write: ``observer(tensor)`` (:func:`before_write`).
BEFORE_WRITES: list[Callable[[Any], None]] = []
#: Called after each in-place write: ``observer(tensor, node_name)``.
WRITES: list[Callable[[Any, str], None]] = []
#: Called after each tensor saved for backward: ``observer(saved_tensor)``.
SAVES: list[Callable[[Any], None]] = []
#: Called after a gradient was accumulated into a leaf's ``.grad``: ``observer(leaf)``.
ACCUMULATIONS: list[Callable[[Any], None]] = []


def before_write(tensor: Any) -> None:
    """Call the :data:`BEFORE_WRITES` observers on ``tensor``, about to be written in place (a
    write site asks ``if BEFORE_WRITES`` first)."""
    for observe in list(BEFORE_WRITES):
        observe(tensor)


class Anomaly:
    """Anomaly mode as core calls it, off: the seam :data:`ANOMALY` holds one."""

    #: Whether the mode is on: a saved tensor keeps :meth:`forward_trace`, the version error
    #: gives torch's anomaly-mode hint.
    enabled = False
    #: Whether, the mode on, the backward loop passes each node's results to :meth:`check_result`.
    check_nan = False

    def forward_trace(self) -> Any:
        """The stack of the forward call, kept by a tensor saved while the mode is on."""
        return None

    def writes_since(self, counter: Any, since: int) -> str:
        """The lines the version error adds after torch's text: the in-place writes recorded on
        ``counter`` after version ``since`` (none here)."""
        return ""

    def check_result(self, node_name: str, grads: Any) -> None:
        """Called by the backward loop with the results of each node while the mode is on with
        ``check_nan``."""

    def on_backward_error(self, node_name: str, trace: Any) -> None:
        """Called when unpacking a saved tensor of node ``node_name`` fails, with the ``trace``
        the tensor kept (before the error propagates)."""


#: Anomaly mode's seam: :class:`Anomaly` (off) until :func:`ownership.installation.install`
#: puts :mod:`ownership.autograd.anomaly_mode`'s state here.
ANOMALY: Anomaly = Anomaly()
