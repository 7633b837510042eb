"""State dicts kept aside, and the ``checkpoint-alias`` finding.

``state_dict()`` returns the module's own tensors (detached aliases sharing memory and version
counter). A dict kept in a variable is therefore not a snapshot: every later optimizer step
changes it. :class:`Checkpoints` remembers each dict returned by ``state_dict()`` (weakly: a dict
that is dropped, as in ``torch.save(model.state_dict(), path)`` or
``copy.deepcopy(model.state_dict())``, is forgotten), the versions of its tensors and the number
of optimizer steps taken so far. When a kept dict is *used* (loaded, saved, or one of its tensors
read) after an optimizer step changed one of its tensors, the finding points to the line that
kept it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from ownership.doctor.findings import Finding, Place

__all__ = ["Checkpoints", "Kept"]

HOW = {"stored": "saved with torch.save", "read": "read", "loaded": "loaded"}


class Kept:
    """One dict returned by ``state_dict()``: where, the versions of its tensors, the steps."""

    __slots__ = ("place", "ref", "steps", "versions")

    def __init__(
        self, state: Any, place: Place | None, steps: int, dropped: Callable[[Any], None]
    ) -> None:
        self.ref = weakref.ref(state, dropped)
        self.place = place
        self.steps = steps
        self.versions: dict[str, int] = {}

    def add(self, state: Any) -> list[Any]:
        """Note the versions of the tensors of ``state`` not noted yet; returns those tensors."""
        new = [
            (k, v) for k, v in state.items() if k not in self.versions and hasattr(v, "_version")
        ]
        self.versions.update({k: int(v._version) for k, v in new})
        return [v for _, v in new]


class Checkpoints:
    """The state dicts a run kept, by identity; the tensors in them, by identity."""

    def __init__(self, add: Callable[[Finding | None], None], names: Callable[[list[str]], str]):
        self.add = add
        self.names = names
        self.kept: list[Kept] = []
        #: id of a tensor of a kept dict -> (the tensor, weakly; its record).
        self.tensors: dict[int, tuple[weakref.ref[Any], Kept]] = {}
        self.steps = 0
        self.quiet = 0  # inside load_state_dict or save: the use is reported as such

    def on_state_dict(self, state: Any, place: Place | None) -> None:
        """``state_dict()`` returned ``state`` at ``place`` (a module of a tree adds its part)."""
        for kept in self.kept:
            if kept.ref() is state:
                self._index(kept, kept.add(state))
                return
        try:
            kept = Kept(state, place, self.steps, self._dropped)
        except TypeError:
            return
        self.kept.append(kept)
        self._index(kept, kept.add(state))

    def _dropped(self, ref: Any) -> None:
        """A kept dict was garbage-collected: forget it and its tensors (reads cost nothing)."""
        self.kept = [k for k in self.kept if k.ref is not ref]
        self.tensors = {i: e for i, e in self.tensors.items() if e[1].ref is not ref}

    def _index(self, kept: Kept, tensors: list[Any]) -> None:
        for t in tensors:
            try:
                self.tensors[id(t)] = (weakref.ref(t), kept)
            except TypeError:
                continue

    def containing(self, obj: Any, depth: int = 2) -> list[Kept]:
        """The kept dicts that are ``obj`` or sit in it (a dict or a list, ``depth`` deep)."""
        found = [k for k in self.kept if k.ref() is obj]
        if found or depth == 0:
            return found
        values = obj.values() if isinstance(obj, dict) else obj
        if isinstance(obj, dict | list | tuple):
            for v in values:
                found += [k for k in self.containing(v, depth - 1) if k not in found]
        return found

    def of_tensor(self, t: Any) -> Kept | None:
        """The kept dict, still alive, that holds the tensor ``t``, or None."""
        entry = self.tensors.get(id(t))
        if entry is None or entry[0]() is not t or entry[1].ref() is None:
            return None
        return entry[1]

    def used(self, kept: Kept, place: Place | None, role: str) -> None:
        """``kept`` was used at ``place`` (``role``: ``loaded``, ``stored`` by ``torch.save``,
        ``read``): the finding when an optimizer step has changed its tensors since it was kept."""
        state = kept.ref()
        if state is None or self.steps == kept.steps:
            return
        self.quiet += 1  # reading the versions is no use of the dict
        try:
            changed = [
                k
                for k, v in kept.versions.items()
                if k in state and hasattr(state[k], "_version") and int(state[k]._version) != v
            ]
        finally:
            self.quiet -= 1
        if not changed:
            return
        kept_line = f"line {kept.place.line}" if kept.place else "an earlier line"
        used_at = f" at line {place.line}" if place else ""
        steps = self.steps - kept.steps
        text = (
            f"the state_dict() kept at {kept_line} aliases the model's tensors: by the time it "
            f"was {HOW.get(role, role)}{used_at}, {steps} optimizer step{'s' if steps != 1 else ''} had changed "
            f"{len(changed)} of them ({self.names(changed)}) in place, so it holds the current "
            "weights, not the ones it was kept for. Keep a copy: "
            "copy.deepcopy(model.state_dict())."
        )
        related = ((role, place),) if place is not None else ()
        self.add(Finding("checkpoint-alias", kept.place, text, related))
