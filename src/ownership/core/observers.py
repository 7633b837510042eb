"""Hook points for tools layered above the engine: the engine calls these lists, never imports them.

Three events, each raised from the one place it happens:

- :data:`WRITES`: after every in-place write has bumped the version
  (:func:`ownership.ops.inplace.run_inplace`), called as ``observer(tensor, node_name)``, the
  name of the op's backward node (``MulBackward0``, ``ZeroBackward0``), which names the op;
- :data:`SAVES`: after a tensor is saved for backward (:class:`ownership.core.autograd.saved.SavedTensor`),
  called as ``observer(saved)``;
- :data:`ACCUMULATIONS`: after a gradient was summed into a leaf's ``.grad``
  (:func:`ownership.core.autograd.engine`'s ``AccumulateGrad``), called as ``observer(leaf)``.

Every op call (a Tensor method's, a ``torch`` function's, an operator's) passes one observer
point of its own, the op table: :func:`ownership.core.op_registry.watch`.

Anomaly mode (:mod:`ownership.core.autograd.anomaly_mode`) and the doctor (:mod:`ownership.doctor`)
append to these lists and remove themselves when done. While a list is empty an event costs one
truth test. An observer must not raise: its exception would reach the user's program.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["ACCUMULATIONS", "SAVES", "WRITES"]

#: Called after each in-place write: ``observer(tensor, node_name)``.
WRITES: list[Callable[[Any, str], None]] = []
#: Called after each tensor saved for backward: ``observer(saved_tensor)``.
SAVES: list[Callable[[Any], None]] = []
#: Called after a gradient was accumulated into a leaf's ``.grad``: ``observer(leaf)``.
ACCUMULATIONS: list[Callable[[Any], None]] = []
