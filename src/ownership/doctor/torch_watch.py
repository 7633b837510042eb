"""The torch watcher: feeds a :class:`~ownership.doctor.ledger.Ledger` from torch's public hooks.

Imported only once the user's script has imported torch. What it uses:

- a ``TorchFunctionMode``: after each torch call, the new graph nodes and the tensors they saved
  (read through the nodes' ``_saved_*`` attributes, remembered in ``node.metadata``); the calls
  that cut a path (``detach()``, ``.data``), ``numpy()`` aliases, ``Tensor.backward``,
  ``torch.autograd.backward`` and ``torch.autograd.grad``; ``.grad`` set by hand (and whether
  it was computed from the gradient itself, as clipping does); reads of a kept state dict;
- a ``TorchDispatchMode``: every in-place write at the aten level (so also inside ``F.relu(...,
  inplace=True)`` or ``+=``), with the versions of the saved tensors it touched before and after;
- the global module hooks (forward pre/post, module and parameter registration), each module's
  ``register_state_dict_post_hook``, each parameter's ``register_post_accumulate_grad_hook``, and
  the global optimizer step pre/post hooks.

``saved_tensors_hooks`` are deliberately not used: while one is active torch skips its version
check, so the script would no longer raise the error it raises on its own. Three methods have no
public hook and are wrapped for the run (and restored): ``Module.__setattr__`` (a plain list of
modules), ``Module.load_state_dict`` (its hooks see a copy of the dict), ``torch.save`` (a kept
state dict saved) and ``Optimizer.__init__`` (the line that made the optimizer).
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections import defaultdict
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from ownership.doctor import numpy_lines
from ownership.doctor import torch_graph as graph
from ownership.doctor.hand_grads import HandGrads
from ownership.doctor.ledger import Ledger, storage_key
from ownership.doctor.locate import user_place
from ownership.doctor.saves import SaveRecord, is_version_error

__all__ = ["TorchWatch"]

KEY = "ownership.doctor"
HIDDEN_DATA = "an alias with its own version counter (.data)"
HIDDEN_NUMPY = "a numpy array sharing its memory (.numpy())"


class _Functions(TorchFunctionMode):
    def __init__(self, watch: TorchWatch) -> None:
        super().__init__()
        self.watch = watch

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        w = self.watch
        w.ran = True
        if name == "backward" or func is torch.autograd.grad:
            return w.backward(func, args, kwargs)
        if name == "numpy" and args:
            w.numpy_alias(args[0])
        try:
            result = func(*args, **kwargs)
        finally:
            if w.pending:
                w.settle()
        checkpoints = w.ledger.checkpoints
        if checkpoints.tensors and not checkpoints.quiet:
            w.read_kept(args)
        w.hand.derive(name, args, result)
        if name == "__set__" and getattr(func.__self__, "__name__", "") == "grad" and len(args) > 1:
            w.hand.grad_set(args[0], args[1])
            return result
        if name == "detach" or (
            name == "__get__" and getattr(func.__self__, "__name__", "") == "data"
        ):
            source = args[0] if args else None
            if isinstance(source, torch.Tensor) and source.grad_fn is not None:
                how = "detach()" if name == "detach" else ".data"
                w.ledger.on_cut(graph.leaves(source), user_place(), how)
            return result
        if torch.is_grad_enabled():
            roots = [t.grad_fn for t in graph.tensors(result) if t.grad_fn is not None]
            if roots:
                w.record_saves(roots)
        elif not name.endswith("_") and not name.startswith("__") and not w.ledger.step_depth:
            leaves = [t for t in args if isinstance(t, torch.Tensor) and t.requires_grad]
            if leaves:  # parameters read under no_grad: a cut, if their gradient is missed
                w.ledger.on_cut(leaves, user_place(), "computed under no_grad")
        return result


class _Writes(TorchDispatchMode):  # type: ignore[no-untyped-call]
    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        """False: torch leaves this mode's ``__torch_dispatch__`` as written. Otherwise torch
        wraps it to keep ``torch.compile`` out of it, and the wrapper imports ``torch._dynamo``
        (about 4 s) at the first op the mode sees; the doctor compiles nothing."""
        return False

    def __init__(self, watch: TorchWatch) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.watch = watch

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        positions = graph.written(func)
        if not positions:
            return func(*args, **kwargs)
        targets: list[torch.Tensor] = []
        schema_args = func._schema.arguments
        for i in positions:
            value = args[i] if i < len(args) else kwargs.get(schema_args[i].name)
            targets += graph.tensors(value)
        return self.watch.write(func, args, kwargs, targets)


class TorchWatch:
    """Watches torch for one run; ``stop()`` removes every hook, mode and wrapper."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.saves: dict[int, list[weakref.ref[SaveRecord]]] = defaultdict(list)
        self.handles: list[Any] = []
        self.hooked: set[int] = set()
        self.params_hooked: set[int] = set()
        self.pending: list[tuple[SaveRecord, int, torch.Tensor, Any]] = []
        self.restore: list[tuple[Any, str, Any]] = []
        self.hand = HandGrads(ledger, torch.Tensor)
        self.ran = False  # whether the script ran a tensor operation of torch
        self._install()

    # ------------------------------------------------------------------ set up and tear down
    def _install(self) -> None:
        from torch.optim.optimizer import (
            register_optimizer_step_post_hook,
            register_optimizer_step_pre_hook,
        )

        mm = torch.nn.modules.module
        ledger = self.ledger
        self.handles += [
            mm.register_module_forward_pre_hook(self._forward_pre),
            mm.register_module_forward_hook(self._forward_post, always_call=True),
            mm.register_module_module_registration_hook(self._registered),
            mm.register_module_parameter_registration_hook(self._registered),
            register_optimizer_step_pre_hook(lambda opt, a, k: ledger.on_step(opt, user_place())),
            register_optimizer_step_post_hook(
                lambda opt, a, k: ledger.on_step_done(opt, user_place())
            ),
        ]
        self._wrap(torch.nn.Module, "__setattr__", self._setattr)
        self._wrap(torch.nn.Module, "load_state_dict", self._load_state_dict)
        self._wrap(torch.optim.Optimizer, "__init__", self._optimizer_init)
        self._wrap(torch, "save", self._save)
        self.modes: list[Any] = [_Functions(self), _Writes(self)]
        for mode in self.modes:
            mode.__enter__()

    def _wrap(self, owner: Any, name: str, wrapper: Any) -> None:
        original = owner.__dict__[name]
        self.restore.append((owner, name, original))

        @functools.wraps(original)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            return wrapper(original, *args, **kwargs)

        setattr(owner, name, wrapped)

    def stop(self) -> None:
        """Leave the modes, remove the hooks, restore the wrapped methods."""
        for mode in reversed(self.modes):
            mode.__exit__(None, None, None)
        for handle in self.handles:
            handle.remove()
        for owner, name, original in self.restore:
            setattr(owner, name, original)

    # ------------------------------------------------------------------ wrapped methods
    def _setattr(self, original: Any, module: Any, name: str, value: Any) -> None:
        original(module, name, value)
        if isinstance(value, list | tuple | dict):
            self.ledger.on_setattr(module, name, value, user_place())

    def _load_state_dict(
        self, original: Any, module: Any, state_dict: Any, *a: Any, **k: Any
    ) -> Any:
        checkpoints = self.ledger.checkpoints
        for kept in checkpoints.containing(state_dict, depth=0):
            checkpoints.used(kept, user_place(), "loaded")
        checkpoints.quiet += 1
        try:
            return original(module, state_dict, *a, **k)
        finally:
            checkpoints.quiet -= 1

    def _save(self, original: Any, obj: Any, *a: Any, **k: Any) -> Any:
        checkpoints = self.ledger.checkpoints
        for kept in checkpoints.containing(obj):
            checkpoints.used(kept, user_place(), "stored")
        checkpoints.quiet += 1
        try:
            return original(obj, *a, **k)
        finally:
            checkpoints.quiet -= 1

    def _optimizer_init(self, original: Any, opt: Any, *a: Any, **k: Any) -> None:
        original(opt, *a, **k)
        self.ledger.on_optimizer_made(opt, user_place())
        for group in opt.param_groups:
            for p in group["params"]:
                self._hook_param(p)

    # ------------------------------------------------------------------ hooks
    def _registered(self, module: Any, name: str, value: Any) -> None:
        if id(module) in self.hooked:
            return
        self.hooked.add(id(module))
        ledger = self.ledger

        def kept(mod: Any, state: Any, prefix: str, meta: Any) -> None:
            ledger.checkpoints.on_state_dict(state, user_place())

        self.handles.append(module.register_state_dict_post_hook(kept))

    def _forward_pre(self, module: Any, args: Any) -> None:
        self.ledger.forward_depth += 1
        for p in self.ledger.on_module_call(module, torch.is_grad_enabled(), user_place()):
            self._hook_param(p)

    def _forward_post(self, module: Any, args: Any, output: Any) -> None:
        self.ledger.forward_depth = max(0, self.ledger.forward_depth - 1)

    def _hook_param(self, p: Any) -> None:
        self.ledger.track(p)
        if id(p) in self.params_hooked or not p.requires_grad:
            return
        self.params_hooked.add(id(p))
        ledger = self.ledger

        def accumulated(t: Any) -> None:
            ledger.on_accumulate(t, user_place())
            self.hand.remember(t.grad, ledger.track(t)[0])

        self.handles.append(p.register_post_accumulate_grad_hook(accumulated))

    def read_kept(self, args: Any) -> None:
        """A torch function reads the tensors ``args``: some may be a kept state dict's."""
        checkpoints = self.ledger.checkpoints
        for value in args:
            for t in graph.tensors(value):
                kept = checkpoints.of_tensor(t)
                if kept is not None:
                    checkpoints.used(kept, user_place(), "read")

    # ------------------------------------------------------------------ saved tensors
    def record_saves(self, roots: list[Any]) -> None:
        """Remember the tensors saved by the nodes not seen before, reachable from ``roots``."""
        place = None
        stack = list(roots)
        while stack:
            node = stack.pop()
            meta = node.metadata
            if KEY in meta:
                continue
            records: list[SaveRecord] = []
            meta[KEY] = records
            for attr in graph.saved_attrs(node):
                try:
                    value = getattr(node, attr)
                except RuntimeError:
                    continue
                for t in graph.tensors(value):
                    if place is None:
                        place = user_place()
                    try:
                        alias = t.detach()
                    except RuntimeError:  # a wrapped Python number, not memory of the program
                        continue
                    rec = SaveRecord(alias, t._version, place, node.name())
                    records.append(rec)
                    self.saves[storage_key(t)].append(weakref.ref(rec))
            stack.extend(n for n, _ in node.next_functions if n is not None)

    def _live(self, key: int) -> list[SaveRecord]:
        refs = self.saves.get(key)
        if not refs:
            return []
        live = [r() for r in refs]
        kept = [rec for rec in live if rec is not None]
        if len(kept) != len(refs):
            self.saves[key] = [weakref.ref(rec) for rec in kept]
        return kept

    def numpy_alias(self, t: Any) -> None:
        """``t.numpy()``: remember the values of the saved tensors it exposes to numpy writes."""
        if not isinstance(t, torch.Tensor):
            return
        for rec in self._live(storage_key(t)):
            if rec.numpy is None and not rec.stale() and graph.overlap(rec.alias, t):
                rec.numpy = (rec.alias.clone(), user_place())
                # the modes are off in their own handler: this numpy() is not watched; a dtype
                # numpy lacks leaves the numpy() line as the only one known
                with contextlib.suppress(RuntimeError, TypeError):
                    numpy_lines.watch(rec, rec.alias.numpy())

    def write(self, func: Any, args: Any, kwargs: Any, targets: list[torch.Tensor]) -> Any:
        """Run the aten write ``func``, noting which saved tensors it changed and how."""
        ledger = self.ledger
        touched: list[tuple[SaveRecord, int, torch.Tensor]] = []
        for t in targets:
            for rec in self._live(storage_key(t)):
                if graph.overlap(rec.alias, t):
                    touched.append((rec, rec.alias._version, rec.alias.clone()))
        result = func(*args, **kwargs)
        place = user_place() if touched else None
        self.pending += [(rec, before, value, place) for rec, before, value in touched]
        op = str(func)
        for t in targets:
            key = storage_key(t)
            if key in ledger.grad_owner or (
                key in ledger.param_by_storage and ledger.forward_depth and not ledger.step_depth
            ):
                ledger.on_write(t, op, place or user_place())
        return result

    def settle(self) -> None:
        """Classify the writes seen since the last torch call returned. torch bumps a version
        above the dispatch level, after the write itself: so a write bumped the saved tensor's
        counter (a visible write) or, having changed its values without a bump, went through
        another counter (a hidden write)."""
        pending, self.pending = self.pending, []
        bumps: dict[int, int] = {}
        for rec, before, value, place in pending:
            if rec.alias._version > before + bumps.get(id(rec), 0):
                bumps[id(rec)] = bumps.get(id(rec), 0) + 1
                rec.writes.append((before + bumps[id(rec)], place))
            elif not torch.equal(rec.alias, value):
                rec.hidden.append((place, HIDDEN_DATA, None))

    def backward(self, func: Any, args: Any, kwargs: Any) -> Any:
        """``Tensor.backward``, ``torch.autograd.backward`` or ``torch.autograd.grad``: check the
        saved tensors of the graph, run it, explain its error."""
        # (tensors, ...) for both backwards, (outputs, inputs, ...) for grad: retain_graph and
        # create_graph come one position later in grad.
        shift = 1 if func is torch.autograd.grad else 0
        first = args[0] if args else kwargs.get("outputs", kwargs.get("tensors"))
        roots = [t.grad_fn for t in graph.tensors(first)]
        records: list[SaveRecord] = []
        for node in graph.nodes(roots):
            records += node.metadata.get(KEY, ())
        numpy_lines.check()
        for rec in records:
            if rec.numpy is not None:
                if torch.equal(rec.alias, rec.numpy[0]):
                    rec.numpy, rec.numpy_writes = None, []
                else:
                    rec.numpy_changed(HIDDEN_NUMPY)
        self.ledger.on_backward(user_place(), records)
        try:
            result = func(*args, **kwargs)
        except RuntimeError as exc:
            if is_version_error(exc):
                self.ledger.on_version_error(str(exc))
            raise
        finally:
            if self.pending:
                self.settle()
        create = kwargs.get("create_graph", graph.arg(args, 3 + shift, False))
        retain = kwargs.get("retain_graph", graph.arg(args, 2 + shift, None))
        if not (create if retain is None else retain):
            done = {id(r) for r in records}
            for key in {storage_key(r.alias) for r in records}:
                self.saves[key] = [w for w in self.saves[key] if id(w()) not in done]
        for rec in records:
            rec.hidden.clear()
        return result
