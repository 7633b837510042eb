"""What happened during a run, engine-agnostic, and the findings it gives.

A watcher (:mod:`~ownership.doctor.torch_watch`, :mod:`~ownership.doctor.ownership_watch`)
translates its engine's hooks into calls on a :class:`Ledger`: a module is called, an optimizer
is made or steps, a gradient is accumulated, a parameter or a gradient is written, a path is cut,
a ``state_dict()`` is kept or used, backward starts or fails. The ledger reads tensors by duck
typing only (``grad``, ``requires_grad``, ``_version``, ``untyped_storage().data_ptr()``) and keeps
the rules of five findings; the saved-tensor findings are in :mod:`~ownership.doctor.saves`, the
kept state dicts in :mod:`~ownership.doctor.checkpoints`.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from ownership.doctor.checkpoints import Checkpoints
from ownership.doctor.findings import Finding, Place
from ownership.doctor.saves import SaveRecord, explain_version_error, hidden_write

__all__ = ["Ledger"]

#: The write ops that reset a gradient (``zero_grad(set_to_none=False)``, ``grad.zero_()``).
RESETS = ("zero_", "fill_", "_foreach_zero_")


def storage_key(t: Any) -> int:
    """The address of a tensor's memory: equal for every alias (views, detach, .data)."""
    return int(t.untyped_storage().data_ptr())


def nodes(roots: list[Any]) -> list[Any]:
    """Every node reachable from ``roots`` (each once)."""
    seen: set[int] = set()
    order, stack = [], [r for r in roots if r is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return order


class _Param:
    """What the ledger knows about one parameter's gradient."""

    __slots__ = ("entries", "ever_grad", "grad_ref", "label", "ref", "zeroed")

    def __init__(self, p: Any) -> None:
        self.ref = weakref.ref(p)
        self.label = f"a parameter of shape {list(p.shape)}"
        self.grad_ref: Any = None
        self.zeroed = False
        self.ever_grad = False
        #: ``[backward line, line of the step that used it or None]`` per backward in ``.grad``.
        self.entries: list[list[Place | None]] = []


def _names(names: list[str]) -> str:
    """``a, b and 3 more``; a name met n times (modules of one class) reads ``n x name``."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    shown = [f"{n} x {name}" if n > 1 else name for name, n in counts.items()]
    return ", ".join(shown[:4]) + (f" and {len(shown) - 4} more" if len(shown) > 4 else "")


class Ledger:
    """The record of one run. ``finish()`` returns every finding, in the order first seen."""

    def __init__(self) -> None:
        self.findings: dict[tuple[str, str | None, int | None], Finding] = {}
        self.params: dict[int, _Param] = {}
        self.param_by_storage: dict[int, Any] = {}
        self.grad_owner: dict[int, _Param] = {}
        self.names: dict[int, str] = {}
        self.optimizers: list[tuple[Any, Place | None]] = []
        self.owned: set[int] = set()
        self.setattr_places: dict[tuple[int, str], Place | None] = {}
        self.checked_modules: set[int] = set()
        self.cuts: dict[int, tuple[Place | None, str]] = {}
        self.state_writes: dict[int, Place | None] = {}
        self.checkpoints = Checkpoints(self.add, _names)
        self.forward_depth = 0
        self.step_depth = 0
        self.backward_place: Place | None = None
        self.stale_at_backward: list[SaveRecord] = []

    # ------------------------------------------------------------------ findings
    def add(self, finding: Finding | None) -> None:
        """Keep ``finding``; one per code and line (a loop repeats it), related lines merged."""
        if finding is None:
            return
        key = (finding.code, finding.file, finding.line)
        old = self.findings.get(key)
        if old is None:
            self.findings[key] = finding
            return
        merged = list(old.related)
        merged += [r for r in finding.related if r not in merged]
        self.findings[key] = Finding(old.code, old.place, old.message, tuple(merged))

    # ------------------------------------------------------------------ parameters
    def track(self, p: Any) -> tuple[_Param, bool]:
        """The state of parameter ``p``, and whether it was seen for the first time."""
        state = self.params.get(id(p))
        if state is not None and state.ref() is p:
            return state, False
        state = self.params[id(p)] = _Param(p)
        self.param_by_storage[storage_key(p)] = weakref.ref(p)
        return state, True

    def name(self, p: Any) -> str:
        """A readable name for parameter ``p``."""
        return self.names.get(id(p)) or self.track(p)[0].label

    def on_module_call(self, module: Any, grad_enabled: bool, place: Place | None) -> list[Any]:
        """A module's forward starts; returns the parameters seen for the first time."""
        new = []
        for name, p in module.named_parameters():
            self.names.setdefault(id(p), f"{type(module).__name__}.{name}")
        for p in module.parameters(recurse=False):
            if self.track(p)[1]:
                new.append(p)
            if not grad_enabled and p.requires_grad:
                self.cuts[id(p)] = (place, "a forward under no_grad")
        if id(module) not in self.checked_modules:
            self.checked_modules.add(id(module))
            self._check_containers(module)
        return new

    def _check_containers(self, module: Any) -> None:
        module_type = type(module).__mro__[-2]  # nn.Module of either engine (below object)
        for attr, value in vars(module).items():
            if attr.startswith("_") or not isinstance(value, list | tuple | dict):
                continue
            items = value.values() if isinstance(value, dict) else value
            if not any(isinstance(v, module_type) for v in items):
                continue
            kind = type(value).__name__
            fix = "nn.ModuleDict" if isinstance(value, dict) else "nn.ModuleList"
            text = (
                f"{type(module).__name__}.{attr} holds modules in a plain {kind}: their "
                "parameters are invisible to parameters() (so to the optimizer), state_dict() "
                f"and .to(). Use {fix}."
            )
            place = self.setattr_places.get((id(module), attr))
            self.add(Finding("unregistered-module", place, text))

    def on_setattr(self, module: Any, name: str, value: Any, place: Place | None) -> None:
        """``module.name = value`` ran at ``place`` (kept for containers of modules)."""
        if isinstance(value, list | tuple | dict):
            self.setattr_places[(id(module), name)] = place

    def on_optimizer_made(self, optimizer: Any, place: Place | None) -> None:
        """An optimizer was made at ``place``."""
        self.optimizers.append((optimizer, place))
        for p in self._params_of(optimizer):
            self.owned.add(id(p))

    @staticmethod
    def _params_of(optimizer: Any) -> list[Any]:
        return [p for group in optimizer.param_groups for p in group["params"]]

    def _optimizer_place(self, optimizer: Any) -> Place | None:
        for opt, place in self.optimizers:
            if opt is optimizer:
                return place
        return None

    # ------------------------------------------------------------------ gradients
    def on_accumulate(self, p: Any, place: Place | None) -> None:
        """A backward (at ``place``) summed a gradient into ``p.grad``."""
        state, _ = self.track(p)
        grad = p.grad
        previous = state.grad_ref() if state.grad_ref is not None else None
        if previous is not grad or state.zeroed:
            state.entries = []
        state.grad_ref = weakref.ref(grad)
        state.zeroed = False
        # a Parameter: raw leaves updated by hand are no optimizer's business
        state.ever_grad = bool(p.requires_grad) and type(p).__name__ == "Parameter"
        state.entries.append([place, None])
        self.grad_owner[storage_key(grad)] = state

    def on_grad_set(self, p: Any, grad: Any, derived: bool) -> None:
        """``p.grad = grad`` outside backward. A gradient computed from ``p``'s own (clipped,
        scaled) still holds the backwards that one held; any other starts afresh."""
        state, _ = self.track(p)
        state.zeroed = False
        if grad is None:
            state.grad_ref, state.entries = None, []
            return
        if not bool((grad != 0).any()):  # a gradient of zeros holds no backward: a reset
            state.entries = []
        elif not derived:
            state.entries = [[None, None]]
        state.grad_ref = weakref.ref(grad)
        self.grad_owner[storage_key(grad)] = state

    def on_write(self, t: Any, op_name: str, place: Place | None) -> None:
        """An in-place write ``op_name`` on ``t`` (any alias) at ``place``."""
        key = storage_key(t)
        state = self.grad_owner.get(key)
        if state is not None and op_name.removeprefix("aten.").startswith(RESETS):
            state.zeroed = True
        ref = self.param_by_storage.get(key)
        p = ref() if ref is not None else None
        if p is not None and self.forward_depth and not self.step_depth and p.requires_grad:
            self.state_writes.setdefault(id(p), place)

    def on_cut(self, params: Iterable[Any], place: Place | None, how: str) -> None:
        """A tensor computed from ``params`` was cut from the graph (``detach()``, ``.data``, a
        computation under no_grad). A cut made by an optimizer step is none of these."""
        if self.step_depth:
            return
        for p in params:
            if p.requires_grad:
                self.cuts[id(p)] = (place, how)

    def on_backward(self, place: Place | None, records: list[SaveRecord]) -> None:
        """Backward starts at ``place`` over a graph holding these saved tensors."""
        self.backward_place = place
        self.stale_at_backward = [r for r in records if r.stale()]
        for rec in records:
            for where, how, made in rec.hidden:
                self.add(hidden_write(rec, where, how, made, place))

    def on_version_error(self, message: str) -> None:
        """Backward raised the version error with ``message``."""
        self.add(explain_version_error(message, self.stale_at_backward, self.backward_place))

    def on_step(self, optimizer: Any, place: Place | None) -> None:
        """``optimizer.step()`` starts at ``place``: the stale-grad and no-grad-path checks."""
        self.step_depth += 1
        params = self._params_of(optimizer)
        for p in params:
            self.owned.add(id(p))
        with_grad = [p for p in params if p.grad is not None]
        stale_names, stale_lines, used_at = [], [], []
        for p in with_grad:
            state, _ = self.track(p)
            if state.grad_ref is None or state.grad_ref() is not p.grad:
                state.grad_ref = weakref.ref(p.grad)  # a gradient made outside backward
                state.entries = [[None, None]]
                self.grad_owner[storage_key(p.grad)] = state
            used = [e for e in state.entries if e[1] is not None]
            if used:
                stale_names.append(self.name(p))
                stale_lines += [e[0] for e in used if e[0] is not None]
                used_at += [e[1] for e in used if e[1] is not None]
        if stale_names:
            related = [("backward", q) for q in _dedupe(stale_lines)]
            related += [("previous step", q) for q in _dedupe(used_at)]
            backs = ", ".join(str(q.line) for q in _dedupe(stale_lines))
            held = f"the backward at line(s) {backs}" if backs else "a gradient set by hand"
            text = (
                f"this step() used gradients of {_names(stale_names)} that still hold {held}, "
                "already applied by the previous step(): nothing zeroed them in between. Call "
                "optimizer.zero_grad() once per step, before backward."
            )
            self.add(Finding("stale-grad", place, text, tuple(related)))
        if with_grad:
            self._check_cut(params, place)

    def _check_cut(self, params: list[Any], step_place: Place | None) -> None:
        missing = [
            p
            for p in params
            if p.grad is None
            and p.requires_grad
            and id(p) in self.cuts
            and id(p) not in self.state_writes
        ]
        by_place: dict[Place | None, list[Any]] = {}
        hows: dict[Place | None, str] = {}
        for p in missing:
            where, how = self.cuts[id(p)]
            where = where or self.backward_place  # a cut outside the user's files
            by_place.setdefault(where, []).append(p)
            hows[where] = how
        for where, ps in by_place.items():
            how = hows[where]
            cut = "the path to the loss was cut"
            if where is not None:
                cut = f"the path was cut at line {where.line} ({how})"
            back = ""
            if self.backward_place is not None:
                back = f" from the backward at line {self.backward_place.line}"
            related: list[tuple[str, Place]] = []
            if self.backward_place is not None:
                related.append(("backward", self.backward_place))
            if step_place is not None:
                related.append(("step", step_place))
            text = (
                f"{_names([self.name(p) for p in ps])} got no gradient{back}, although the "
                f"optimizer owns them and the backward reached its other parameters: {cut}. "
                "Remove the detach()/.data/no_grad on the way to the loss, or freeze them on "
                "purpose with requires_grad_(False)."
            )
            self.add(Finding("no-grad-path", where, text, tuple(related)))

    def on_step_done(self, optimizer: Any, place: Place | None) -> None:
        """``optimizer.step()`` returned: the gradients it read are now used."""
        self.step_depth = max(0, self.step_depth - 1)
        self.checkpoints.steps += 1
        for p in self._params_of(optimizer):
            if p.grad is None:
                continue
            state, _ = self.track(p)
            for entry in state.entries:
                if entry[1] is None:
                    entry[1] = place
            self.cuts.pop(id(p), None)

    # ------------------------------------------------------------------ end of run
    def finish(self) -> list[Finding]:
        """The findings of the run (adds the ones only the end can tell)."""
        if self.optimizers:
            first = self.optimizers[0][1]
            for opt, _ in self.optimizers:
                self.owned.update(id(p) for p in self._params_of(opt))
            lost = [
                self.names.get(k, s.label)
                for k, s in self.params.items()
                if s.ever_grad and k not in self.owned
            ]
            if lost:
                made = f"line {first.line}" if first else "its line"
                text = (
                    f"{_names(lost)} received gradients, but no "
                    f"optimizer owns them (the optimizer made at {made} does not): they never "
                    "train. Register every layer (nn.ModuleList, nn.ModuleDict) before building "
                    "the optimizer from model.parameters(), or freeze them with "
                    "requires_grad_(False)."
                )
                self.add(Finding("not-optimized", first, text))
        for pid, where in self.state_writes.items():
            state = self.params.get(pid)
            if state is None or not (pid in self.owned or state.ever_grad):
                continue
            text = (
                f"{self.names.get(pid, state.label)} is a Parameter, yet it is written in forward at line "
                f"{where.line if where else '?'}, like state (a counter, a running statistic): "
                "it also receives gradients and optimizer updates. Register it with "
                "register_buffer instead."
            )
            related = tuple(("optimizer", q) for _, q in self.optimizers[:1] if q is not None)
            self.add(Finding("state-as-parameter", where, text, related))
        return list(self.findings.values())


def _dedupe(places: list[Place]) -> list[Place]:
    seen: dict[tuple[str, int], Place] = {}
    for p in places:
        seen.setdefault((p.file, p.line), p)
    return list(seen.values())
