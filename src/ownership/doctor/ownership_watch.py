"""The ownership watcher: feeds a :class:`~ownership.doctor.ledger.Ledger` from the engine itself.

The engine calls the doctor through its hook points (:mod:`ownership.core.observers`): every in-place
write, every saved tensor, every gradient accumulation; and every ``save``
(:data:`ownership.serialization.SAVING`). Those are exact where torch's are
inferred: a write shares the saved tensor's version counter (``counter is counter``) or it does
not (a hidden write), and memory overlap is numpy's own ``shares_memory``. The engine has no
module or optimizer hooks, so the doctor wraps, for the run only, ``Module.__call__``,
``__setattr__``, ``state_dict`` and ``load_state_dict``, ``Optimizer.__init__`` and ``step``, and
``Tensor.backward``, ``autograd.grad``, ``detach``, ``data``, ``grad`` and ``numpy`` (and the
``step()`` of an optimizer subclass that defines its own), and every op call, through the op table's one observer point
(:func:`ownership.core.op_registry.watch`: every function, method and operator calls an op there), whose
results :class:`~ownership.doctor.hand_grads.HandGrads` reads for gradients computed from a
gradient; ``stop()`` puts them back.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import weakref
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import numpy as np

from ownership import autograd, serialization
from ownership.core import observers, op_registry
from ownership.core.grad_mode import is_grad_enabled
from ownership.core.tensor import Tensor
from ownership.doctor import numpy_lines
from ownership.doctor.hand_grads import HandGrads
from ownership.doctor.ledger import Ledger, nodes, storage_key
from ownership.doctor.locate import user_place
from ownership.doctor.saves import SaveRecord, is_version_error
from ownership.nn.module import Module
from ownership.optim.optimizer import Optimizer

__all__ = ["OwnershipWatch"]

HIDDEN_DATA = "an alias with its own version counter (.data)"
HIDDEN_NUMPY = "a numpy array sharing its memory (.numpy())"


def _overlap(a: Any, b: Any) -> bool:
    work: Any = 100_000
    try:
        return bool(np.shares_memory(a._data, b._data, max_work=work))
    except np.exceptions.TooHardError:
        return True


class _Depth(threading.local):
    """Per thread: how many backwards this thread runs (another thread's ops are still seen)."""

    depth = 0


class OwnershipWatch:
    """Watches the ownership engine for one run; ``stop()`` undoes everything."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.used = False  # whether the script did anything with the engine (an op included)
        self.records: dict[int, SaveRecord] = {}
        self.by_storage: dict[int, list[weakref.ref[SaveRecord]]] = defaultdict(list)
        self.restore: list[tuple[Any, str, Any]] = []
        self.stepped_classes: set[type] = set()
        self.stepping: set[int] = set()
        self.backwards = _Depth()  # inside a backward: its ops are unseen, as by torch's mode
        self.hand = HandGrads(ledger, Tensor)
        observers.SAVES.append(self._saved)
        observers.WRITES.append(self._wrote)
        observers.ACCUMULATIONS.append(self._accumulated)
        serialization.SAVING.append(self._saving)
        self._wrap(Module, "__call__", self._call)
        self._wrap(Module, "__setattr__", self._setattr)
        self._wrap(Module, "state_dict", self._state_dict)
        self._wrap(Module, "load_state_dict", self._load_state_dict)
        self._wrap(Optimizer, "__init__", self._optimizer_init)
        self._wrap(Optimizer, "step", self._step)
        self._wrap(Tensor, "backward", self._backward)
        self._wrap(autograd, "grad", self._grad)
        self._wrap(Tensor, "detach", self._detach)
        self._wrap(Tensor, "numpy", self._numpy)
        # the properties are inherited (``tensor_autograd``): the watched ones go on ``Tensor``
        # itself for the run, and are removed after it (``stop``: no entry of its own before)
        data: Any = inspect.getattr_static(Tensor, "data")
        self.restore.append((Tensor, "data", Tensor.__dict__.get("data")))
        watched = property(functools.partial(self._data, data.fget), data.fset)
        type.__setattr__(Tensor, "data", watched)
        grad: Any = inspect.getattr_static(Tensor, "grad")
        self.restore.append((Tensor, "grad", Tensor.__dict__.get("grad")))
        setter = functools.partial(self._grad_set, grad.fset)
        type.__setattr__(Tensor, "grad", property(grad.fget, setter, grad.fdel, grad.__doc__))
        # every op call, a method's, a function's or an operator's, passes the table's one
        # observer point
        op_registry.watch(self._op)

    def _wrap(self, owner: Any, name: str, wrapper: Any) -> None:
        original = getattr(owner, name)
        self.restore.append((owner, name, owner.__dict__.get(name)))

        @functools.wraps(original)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            return wrapper(original, *args, **kwargs)

        setattr(owner, name, wrapped)

    def stop(self) -> None:
        """Remove the observers and restore every wrapped method."""
        observers.SAVES.remove(self._saved)
        observers.WRITES.remove(self._wrote)
        observers.ACCUMULATIONS.remove(self._accumulated)
        op_registry.unwatch()
        serialization.SAVING.remove(self._saving)
        for owner, name, original in reversed(self.restore):
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)

    # ------------------------------------------------------------------ engine events
    def _saved(self, saved: Any) -> None:
        self.used = True
        if saved.tensor is None:  # packed by saved-tensor hooks: torch checks no version then
            return
        rec = SaveRecord(saved.tensor, saved.version, user_place(), saved.saved_by)
        key = id(saved)
        self.records[key] = rec
        weakref.finalize(saved, self.records.pop, key, None)
        self.by_storage[storage_key(saved.tensor)].append(weakref.ref(rec))

    def _live(self, key: int) -> list[SaveRecord]:
        refs = self.by_storage.get(key)
        if not refs:
            return []
        kept = [r for r in (ref() for ref in refs) if r is not None]
        if len(kept) != len(refs):
            self.by_storage[key] = [weakref.ref(r) for r in kept]
        return kept

    def _wrote(self, t: Any, node_name: str) -> None:
        self.used = True
        key = storage_key(t)
        place = None
        for rec in self._live(key):
            if rec.alias is t or _overlap(rec.alias, t):
                place = place or user_place()
                if rec.alias._version_counter is t._version_counter:
                    rec.writes.append((t._version, place))
                else:
                    rec.hidden.append((place, HIDDEN_DATA, None))
        ledger = self.ledger
        if key in ledger.grad_owner or (
            key in ledger.param_by_storage and ledger.forward_depth and not ledger.step_depth
        ):
            op = {"ZeroBackward0": "zero_", "FillBackward2": "fill_"}.get(node_name, node_name)
            ledger.on_write(t, op, place or user_place())

    def _accumulated(self, leaf: Any) -> None:
        self.ledger.on_accumulate(leaf, user_place())
        self.hand.remember(leaf.grad, self.ledger.track(leaf)[0])

    # ------------------------------------------------------------------ wrapped methods
    def _call(self, original: Any, module: Any, *args: Any, **kwargs: Any) -> Any:
        ledger = self.ledger
        self.used = True
        ledger.forward_depth += 1
        try:
            ledger.on_module_call(module, is_grad_enabled(), user_place())
            return original(module, *args, **kwargs)
        finally:
            ledger.forward_depth = max(0, ledger.forward_depth - 1)

    def _setattr(self, original: Any, module: Any, name: str, value: Any) -> None:
        original(module, name, value)
        if isinstance(value, list | tuple | dict):
            self.ledger.on_setattr(module, name, value, user_place())

    def _state_dict(self, original: Any, module: Any, *args: Any, **kwargs: Any) -> Any:
        state = original(module, *args, **kwargs)
        self.ledger.checkpoints.on_state_dict(state, user_place())
        return state

    def _load_state_dict(self, original: Any, module: Any, state: Any, *a: Any, **k: Any) -> Any:
        checkpoints = self.ledger.checkpoints
        for kept in checkpoints.containing(state, depth=0):
            checkpoints.used(kept, user_place(), "loaded")
        checkpoints.quiet += 1  # what loading reads of a kept dict is its use as loaded
        try:
            return original(module, state, *a, **k)
        finally:
            checkpoints.quiet -= 1

    @contextlib.contextmanager
    def _saving(self, obj: Any) -> Iterator[None]:
        """Around ``save(obj, ...)`` (:data:`ownership.serialization.SAVING`)."""
        checkpoints = self.ledger.checkpoints
        for kept in checkpoints.containing(obj):
            checkpoints.used(kept, user_place(), "stored")
        checkpoints.quiet += 1  # what save reads of a kept dict is its use as stored
        try:
            yield
        finally:
            checkpoints.quiet -= 1

    def _optimizer_init(self, original: Any, opt: Any, *args: Any, **kwargs: Any) -> None:
        original(opt, *args, **kwargs)
        self.used = True
        self.ledger.on_optimizer_made(opt, user_place())
        # a subclass's own step() (one that does not go through Optimizer.step) is watched too
        for cls in type(opt).__mro__:
            if cls is Optimizer or cls in self.stepped_classes:
                break
            if "step" in cls.__dict__:
                self.stepped_classes.add(cls)
                self._wrap(cls, "step", self._step)
                break

    def _step(self, original: Any, opt: Any, *args: Any, **kwargs: Any) -> Any:
        if id(opt) in self.stepping:  # a subclass's step() calling its base's: one step
            return original(opt, *args, **kwargs)
        place = user_place()
        self.stepping.add(id(opt))
        self.ledger.on_step(opt, place)
        try:
            return original(opt, *args, **kwargs)
        finally:
            self.stepping.discard(id(opt))
            self.ledger.on_step_done(opt, place)

    def _backward(self, original: Any, t: Any, *args: Any, **kwargs: Any) -> Any:
        return self._run_backward([t], functools.partial(original, t), args, kwargs)

    def _grad(self, original: Any, outputs: Any, *args: Any, **kwargs: Any) -> Any:
        tensors = list(outputs) if isinstance(outputs, list | tuple) else [outputs]
        return self._run_backward(tensors, functools.partial(original, outputs), args, kwargs)

    def _run_backward(self, tensors: list[Any], run: Any, args: Any, kwargs: Any) -> Any:
        """A backward (or ``autograd.grad``) from ``tensors``: check the saved tensors of their
        graph, run it, explain its version error."""
        records: list[SaveRecord] = []
        roots = [getattr(t, "grad_fn", None) for t in tensors]
        for node in nodes(roots):
            for saved in (getattr(node, "_saved", None) or {}).values():
                rec = self.records.get(id(saved))
                if rec is not None:
                    records.append(rec)
        numpy_lines.check()
        for rec in records:
            if rec.numpy is not None:
                if np.array_equal(rec.alias._data, rec.numpy[0], equal_nan=True):
                    rec.numpy, rec.numpy_writes = None, []
                else:
                    rec.numpy_changed(HIDDEN_NUMPY)
        self.ledger.on_backward(user_place(), records)
        for rec in records:
            rec.hidden.clear()
        self.backwards.depth += 1
        try:
            return run(*args, **kwargs)
        except RuntimeError as exc:
            if is_version_error(exc):
                self.ledger.on_version_error(str(exc))
            raise
        finally:
            self.backwards.depth -= 1

    def _cut(self, t: Any, how: str) -> None:
        if t._grad_fn is not None:
            leaves = [n.variable for n in nodes([t._grad_fn]) if hasattr(n, "variable")]
            self.ledger.on_cut(leaves, user_place(), how)

    def _detach(self, original: Any, t: Any) -> Any:
        self._cut(t, "detach()")
        return original(t)

    def _data(self, fget: Any, t: Any) -> Any:
        self._cut(t, ".data")
        return fget(t)

    def _grad_set(self, fset: Any, t: Any, value: Any) -> None:
        fset(t, value)
        self.hand.grad_set(t, value)

    def _op(self, name: str, original: Any, args: Any, kwargs: Any) -> Any:
        """An op called outside any other (:func:`ownership.core.op_registry.watch`) and
        outside a backward (its nodes' ops and hooks): what torch's function mode sees."""
        self.used = True
        result = original(*args, **kwargs)
        if self.backwards.depth:
            return result
        self.hand.derive(name, args, result)
        checkpoints = self.ledger.checkpoints
        if checkpoints.tensors and not checkpoints.quiet:
            self._read_kept(args)
        return result

    def _read_kept(self, args: Any) -> None:
        """An op reads the tensors ``args`` (or lists of them): some may be a kept state dict's."""
        checkpoints = self.ledger.checkpoints
        for value in args:
            for t in value if isinstance(value, list | tuple) else (value,):
                kept = checkpoints.of_tensor(t) if isinstance(t, Tensor) else None
                if kept is not None:
                    checkpoints.used(kept, user_place(), "read")

    def _numpy(self, original: Any, t: Any, *args: Any, **kwargs: Any) -> Any:
        for rec in self._live(storage_key(t)):
            if rec.numpy is None and not rec.stale() and _overlap(rec.alias, t):
                rec.numpy = (rec.alias._data.copy(), user_place())
                numpy_lines.watch(rec, rec.alias._data)
        return original(t, *args, **kwargs)
