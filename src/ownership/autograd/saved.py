"""Saved tensors: what a node keeps for its backward, and the version check at unpack time.

When an op saves a tensor, the tensor's version (its storage's counter) is recorded. When
backward unpacks it, a different version means the tensor was modified in place since, and the
gradient would be wrong: torch refuses with the message reproduced here, word for word.
"""

from __future__ import annotations

import re
import weakref
from typing import Any

from ownership.autograd import graph
from ownership.inference_mode import INFERENCE_SAVE_MESSAGE

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def short_name(name: str) -> str:
    """The op name torch prints in errors: ``SigmoidBackward0`` -> ``Sigmoid``, ``MaxBackward1``
    -> ``Max1``; names without that suffix (``torch::autograd::CopySlices``) are kept whole."""
    return re.sub(r"Backward(\d*)$", lambda m: "" if m.group(1) in ("", "0") else m.group(1), name)


def describe(tensor: Any) -> str:
    """torch's short description of a tensor in errors: ``torch.FloatTensor [3]``."""
    return f"torch.{tensor.dtype.legacy} {list(tensor.shape)}"


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved."""

    __slots__ = (
        "node",
        "output_nr",
        "packed",
        "saved_for",
        "tensor",
        "version",
        "was_leaf",
        "weak_fn",
    )

    def __init__(
        self, tensor: Any, node: Any = None, saved_for: Any = None, on_view: bool = False
    ) -> None:
        if tensor._storage.counter.inference:
            raise RuntimeError(INFERENCE_SAVE_MESSAGE)
        hooks = graph.top()
        # with saved-tensor hooks only the packed value is kept (see autograd.graph)
        self.packed: tuple[Any, Any] | None = (
            None if hooks is None else (hooks[1], hooks[0](tensor))
        )
        self.version: int = tensor._storage.counter.value
        self.weak_fn: Any = None
        if on_view:
            # the result of an in-place op on a view: torch keeps a weak reference to the view's
            # grad_fn after the rebase (its AsStridedBackward0) and names it in errors while it
            # is alive, else the saving node
            self.weak_fn = weakref.ref(tensor._grad_fn) if tensor._grad_fn is not None else None
            saved_for = node
            node = None
            self.was_leaf = False
        else:
            self.was_leaf = node is None and tensor.grad_fn is None
        # the saving node when the tensor is that node's output, and a custom Function's node
        # (named once the history is gone): both weakly, as torch does, so that a graph holding
        # its own outputs is no reference cycle and is freed as soon as nobody holds it
        self.node: Any = weakref.ref(node) if node is not None else None
        self.saved_for: Any = weakref.ref(saved_for) if saved_for is not None else None
        self.output_nr: int = tensor._output_nr
        if node is not None:
            # an output is saved as a new alias of its memory (as torch saves ``tensor_data``), so
            # that a later ``y.data = ...`` does not change what backward reads; its history is
            # attached when it is unpacked
            tensor = tensor._alias(tensor._storage)
        self.tensor: Any = tensor if self.packed is None else None

    def unpack(self) -> Any:
        """The saved tensor, or torch's RuntimeError if it was modified in place since."""
        if self.packed is not None:
            unpack_hook, value = self.packed
            return unpack_hook(value)
        t = self.tensor
        node = self.node() if self.node is not None else None
        if self.node is not None:
            named, nr = node, 0
        elif self.weak_fn is not None:
            named, nr = self.weak_fn(), 0
        else:
            named, nr = t.grad_fn, t._output_nr
        if named is None and not self.was_leaf:
            if self.saved_for is None:
                raise RuntimeError(
                    "Trying to use a saved tensor that has been detached in-place, i.e. with "
                    ".detach_().This is not supported, please use out-of-place `.detach()` instead"
                )
            named, nr = self.saved_for(), self.output_nr
        current = t._storage.counter.value
        if current != self.version:
            msg = (
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{describe(t)}]"
            )
            if named is not None:
                msg += f", which is output {nr} of {short_name(named.name())},"
            msg += f" is at version {current}; expected version {self.version} instead. {HINT}"
            raise RuntimeError(msg)
        if node is not None:  # a saved output: a fresh alias whose history is the saving node
            out = t._alias(t._storage)
            out._grad_fn = node
            out._requires_grad = True
            return out
        return t
