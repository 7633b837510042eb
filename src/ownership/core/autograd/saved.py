"""Saved tensors: what a node keeps for its backward, and the version check at unpack time.

A saved tensor's version is recorded when saved; at unpack, a different version means it was
modified in place since, and torch's error is raised, word for word.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable
from typing import Any

from ownership.core import observers
from ownership.core.inference_mode import INFERENCE_SAVE_MESSAGE
from ownership.core.storage import is_engine_tensor

Hooks = tuple[Callable[[Any], Any], Callable[[Any], Any]]


class _HookStacks(threading.local):
    def __init__(self) -> None:
        self.stack: list[Hooks] = []
        self.disabled: list[str] = []


SAVED_TENSORS_HOOKS = _HookStacks()
"""Per thread: the active saved-tensor hooks ``(pack, unpack_hook)``, innermost last, and the
messages of the open ``disable_saved_tensors_hooks`` blocks (parity's ``ownership.autograd.graph``
pushes them; ``pack`` calls the pack hook as torch does)."""

_accumulator: Any = None
""":func:`ownership.core.autograd.node.accumulator`, given by ``install()`` (node imports saved)."""

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

ANOMALY_HINT = (
    "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!"
)
"""The hint in anomaly mode; ``HINT`` else."""
HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def forward_op_name(name: str) -> str:
    """The op name torch prints in errors: ``SigmoidBackward0`` -> ``Sigmoid``, ``MaxBackward1``
    -> ``Max1``; names without that suffix (``torch::autograd::CopySlices``) are kept whole."""
    return re.sub(r"Backward(\d*)$", lambda m: "" if m.group(1) in ("", "0") else m.group(1), name)


def describe(tensor: Any) -> str:
    """torch's short description of a tensor in errors: ``torch.FloatTensor [3]``,
    ``CPUBoolType [3]`` (``dtype.error_name``)."""
    return f"{tensor.dtype.error_name} {list(tensor.shape)}"


def save_into(
    node: Any,
    name: str,
    tensor: Any,
    is_output: bool = False,
    on_view: bool = False,
    wrapped_number: bool = False,
) -> None:
    """``OpNode.save``: a :class:`~ownership.core.autograd.saved.SavedTensor` of ``tensor``
    under ``name`` in ``node``'s saved values (None is kept in its context; a list of tensors
    and None, a ``SavedTensorList``)."""
    if tensor is None:
        node._ctx[name] = None
        return
    saved: SavedTensor | SavedTensorList
    if isinstance(tensor, list):
        saved = SavedTensorList(
            None if t is None else SavedTensor(t, saved_by=node._name) for t in tensor
        )
    else:
        saved = SavedTensor(
            tensor, is_output, on_view=on_view, saved_by=node._name, wrapped_number=wrapped_number
        )
    values = node._saved
    if values is None:
        node._saved = {name: saved}
    else:
        values[name] = saved


def refuse_inference(tensor: Any) -> Any:
    """torch's refusal to save an inference tensor; else its version counter (None: not made)."""
    counter = tensor._lazy_counter
    if counter is not None and counter.inference:
        raise RuntimeError(INFERENCE_SAVE_MESSAGE)
    return counter


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    A node's own output is kept as torch keeps it, without its ``grad_fn`` (re-attached at each
    unpack), so a graph never backpropagated has no reference cycle; its alias is kept as its
    parts (``tensor_parts``) until first read."""

    __slots__ = (
        "__weakref__",
        "_tensor",
        "is_output",
        "names_owner",
        "output_nr",
        "packed",
        "saved_by",
        "tensor_parts",
        "trace",
        "version",
        "was_leaf",
        "weak_fn",
    )

    def __init__(
        self,
        tensor: Any,
        is_output: bool = False,
        names_owner: bool = False,
        on_view: bool = False,
        saved_by: str = "",
        wrapped_number: bool = False,
    ) -> None:
        counter = refuse_inference(tensor)
        stack = SAVED_TENSORS_HOOKS.stack
        hooks = stack[-1] if stack and not wrapped_number else None
        # with saved-tensor hooks: ``(unpack_hook, packed value, grad_fn, accumulator)``
        self.packed: tuple[Any, Any, Any, Any] | None = None
        if hooks is not None:
            value = hooks[0](tensor)
            hook_fn = hook_acc = None
            if not is_output and not on_view:
                if tensor._node() is not None:
                    hook_fn = tensor._node()
                elif tensor._requires_grad:
                    hook_acc = _accumulator(tensor)
            self.packed = (hooks[1], value, hook_fn, hook_acc)
        self.version: int = counter.value if counter is not None else 0
        self.weak_fn: Any = None
        self.saved_by = saved_by  # the saving node's name (no reference to the node)
        anomaly = observers.ANOMALY
        self.trace = anomaly.forward_trace() if anomaly.enabled else None
        self.names_owner = names_owner  # a custom Function's node: named once the history is gone
        if on_view:
            # an in-place op's result on a view: named after the view's grad_fn while it lives
            self.weak_fn = weakref.ref(tensor._grad_fn) if tensor._grad_fn is not None else None
            self.names_owner = True
            is_output = True
        self.was_leaf = not is_output and tensor._node() is None
        self.is_output = is_output
        self.output_nr: int = tensor._output_nr
        self.tensor_parts: tuple[Any, ...] | None = None
        if self.packed is not None:
            self._tensor: Any = None
        elif is_output:  # a new alias of its memory: a later ``y.data = ...`` changes nothing
            self.tensor_parts = tensor._alias_parts()
        else:
            self._tensor = tensor
        if observers.SAVES:
            for observe in observers.SAVES:
                observe(self)

    def unpack(self, owner: Any = None) -> Any:
        """The saved tensor (an output: a new alias whose ``grad_fn`` is ``owner``, the node
        that saved it), or torch's RuntimeError if it was modified in place since."""
        if self.packed is not None:
            unpack_hook, value, hook_fn, hook_acc = self.packed
            data = unpack_hook(value)
            if not is_engine_tensor(data):
                return data
            t: Any = data._detach()  # a new variable of the data, with its history
            if self.is_output or self.weak_fn is not None:
                t._grad_fn, t._output_nr, t._requires_grad = owner, self.output_nr, True
            elif hook_fn is not None:
                t._grad_fn, t._output_nr, t._requires_grad = hook_fn, self.output_nr, True
            elif hook_acc is not None:
                t._requires_grad = True
                t._acc = weakref.ref(hook_acc)
            return t
        parts = self.tensor_parts
        t = self._tensor if parts is None else None
        if self.weak_fn is not None:
            named, nr = self.weak_fn(), 0
        elif self.is_output:
            named, nr = owner, 0
        else:  # a view's history may need a refresh (``_node``)
            named, nr = t._node(), t._output_nr
        if named is None and not self.was_leaf:
            if not self.names_owner:
                raise RuntimeError(
                    "Trying to use a saved tensor that has been detached in-place, i.e. with "
                    ".detach_().This is not supported, please use out-of-place `.detach()` instead"
                )
            named, nr = owner, self.output_nr
        counter = t._lazy_counter if parts is None else parts[6]
        current = counter.value if counter is not None else 0  # None: never written to
        if current != self.version:
            t = self.tensor  # an output's alias, made now to be described
            msg = (
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{describe(t)}]"
            )
            if named is not None:
                msg += f", which is output {nr} of {forward_op_name(named.name())},"
            anomaly = observers.ANOMALY
            hint = ANOMALY_HINT if anomaly.enabled else HINT
            msg += f" is at version {current}; expected version {self.version} instead. {hint}"
            writes = anomaly.writes_since(t._version_counter, self.version)
            raise RuntimeError(msg + "\n" + writes if writes else msg)
        if self.is_output:
            t = parts[0](*parts[1:]) if parts is not None else t._alias(t._version_counter)
            t._grad_fn = named if named is not None else owner
            t._output_nr = self.output_nr
            t._requires_grad = True
        return t

    @property
    def tensor(self) -> Any:
        """The saved tensor (an output's alias made at the first read, then kept)."""
        parts = self.tensor_parts
        if parts is not None:
            tensor = self._tensor = parts[0](*parts[1:])
            self.tensor_parts = None
            return tensor
        return self._tensor


class SavedTensorList(tuple[Any, ...]):
    """Tensors saved under one name, None kept where there is none (torch's saved ``Tensor?[]``:
    an advanced index's ``indices``), each a :class:`SavedTensor` unpacked and checked in turn."""

    __slots__ = ()

    @property
    def trace(self) -> Any:
        """The forward call that saved them (anomaly mode; else None)."""
        return next((s.trace for s in self if s is not None), None)

    def unpack(self, owner: Any = None) -> tuple[Any, ...]:
        """The saved tensors (None kept), each version-checked as ``SavedTensor.unpack``."""
        return tuple(None if s is None else s.unpack(owner) for s in self)
