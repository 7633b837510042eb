"""The checks of ``collect_parameters(module) -> list[tuple[str, Tensor]]``.

The learner's list is compared with ``named_parameters()`` on each generated tree. Each entry
is first *identified*: the Parameter itself; a stand-in for one (a view, a detached alias or a
copy: ``copies``); a buffer or an unregistered tensor attribute; or unknown. The codes then
follow from what is missing, repeated, misnamed or out of order (see the catalogue).
While the learner's function runs, ``named_parameters``, ``parameters`` and ``state_dict`` of the
engine's ``Module`` class are watched (``uses-builtin``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ownership.grade.cases import collect_trees
from ownership.grade.catalogue import diagnosis
from ownership.grade.learner import LearnerProblem, call

__all__ = ["check_collect"]

_BUILTINS = ("named_parameters", "parameters", "state_dict")
_NAMES = frozenset({"weight", "bias"})


@contextlib.contextmanager
def _watch(cls: type) -> Iterator[set[str]]:
    """Record which of the framework's collection methods run inside the block."""
    called: set[str] = set()
    originals = {name: cls.__dict__[name] for name in _BUILTINS}

    def spy(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def watched(self: Any, *args: Any, **kwargs: Any) -> Any:
            called.add(name)
            return original(self, *args, **kwargs)

        return watched

    for name, original in originals.items():
        setattr(cls, name, spy(name, original))
    try:
        yield called
    finally:
        for name, original in originals.items():
            setattr(cls, name, original)


@dataclass
class _Tree:
    """What the tree really holds, by tensor identity."""

    params: list[tuple[str, Any]]  # named_parameters()
    depth: dict[int, int]  # id(param) -> depth of its first owner (root 0)
    others: dict[int, str]  # id(buffer or plain tensor attribute) -> qualified name


def _survey(module: Any) -> _Tree:
    depth: dict[int, int] = {}
    others: dict[int, str] = {}
    for prefix, sub in module.named_modules():
        level = prefix.count(".") + 1 if prefix else 0
        for p in sub._parameters.values():
            if p is not None:
                depth.setdefault(id(p), level)
        dot = prefix + "." if prefix else ""
        for name, value in [*sub._buffers.items(), *vars(sub).items()]:
            if value is not None and hasattr(value, "_version"):
                others.setdefault(id(value), dot + name)
    return _Tree(list(module.named_parameters()), depth, others)


def _same_values(a: Any, b: Any) -> bool:
    try:
        return tuple(a.shape) == tuple(b.shape) and bool((a.detach() == b.detach()).all())
    except Exception:
        return False


def _stand_in(tensor: Any, candidates: list[Any]) -> Any:
    """The candidate ``tensor`` stands for without being it: view, alias, or equal copy."""
    base = getattr(tensor, "_base", None)
    for c in candidates:
        if base is c:
            return c
    for c in candidates:
        if tensor.data_ptr() == c.data_ptr() and tuple(tensor.shape) == tuple(c.shape):
            return c
    for c in candidates:
        if _same_values(tensor, c):
            return c
    return None


def _entries(result: Any, engine: Any) -> list[tuple[str, Any]]:
    if isinstance(result, (str, bytes, dict)) or not hasattr(result, "__iter__"):
        raise LearnerProblem(diagnosis("bad-return", f"It returned a {type(result).__name__}."))
    entries = list(result)
    for entry in entries:
        ok = isinstance(entry, (tuple, list)) and len(entry) == 2 and isinstance(entry[0], str)
        if ok and isinstance(entry[1], engine.Tensor):
            continue
        if isinstance(entry, engine.Tensor):
            said = "One entry is a tensor without its name: each entry is a pair (name, parameter)."
        elif ok and entry[1] is None:
            said = (
                f"One entry is ({entry[0]!r}, None): a name registered without a tensor (the "
                "bias of Linear(..., bias=False)) is not a parameter; leave it out."
            )
        else:
            shown = " ".join(repr(entry).split())
            said = f"One entry is a {type(entry).__name__}: {shown:.60}."
        raise LearnerProblem(diagnosis("bad-return", said))
    return [(str(n), t) for n, t in entries]


def _only_weight_and_bias(results: list[tuple[list[tuple[str, Any]], _Tree]]) -> bool:
    """Whether every Parameter the learner found, in every tree, is called weight or bias."""
    for entries, tree in results:
        names = {id(p): n.rsplit(".", 1)[-1] for n, p in tree.params}
        if any(names.get(id(t), "weight") not in _NAMES for _, t in entries):
            return False
    return True


def _judge(entries: list[tuple[str, Any]], tree: _Tree, by_name: bool) -> set[str]:
    """The codes of one tree; ``by_name``: the learner only ever found weights and biases."""
    codes: set[str] = set()
    params = [p for _, p in tree.params]
    by_id = {id(p): p for p in params}
    expected_name = {id(p): n for n, p in tree.params}
    found: list[tuple[str, Any, bool]] = []  # (name, param, whole) for entries standing for one
    taken_others: list[str] = []
    for name, tensor in entries:
        if id(tensor) in by_id:
            found.append((name, tensor, True))
            continue
        if id(tensor) in tree.others:
            taken_others.append(tree.others[id(tensor)])
            continue
        param = _stand_in(tensor, params)
        if param is not None:
            codes.add("copies")
            found.append((name, param, tuple(tensor.shape) == tuple(param.shape)))
            continue
        codes.add("copies")  # a stand-in for a buffer, or a tensor computed from something
    leaves = [n.rsplit(".", 1)[-1] for n in taken_others]
    if any(leaf not in _NAMES for leaf in leaves):
        codes.add("includes-buffers")
    elif leaves:
        codes.add("by-attribute-name")
    whole_ids = [id(p) for _, p, whole in found if whole]
    if len(whole_ids) != len(set(whole_ids)):
        codes.add("tied-twice")
    got_ids = {id(p) for _, p, _ in found}
    missing = [p for p in params if id(p) not in got_ids]
    if missing:
        reached = max((tree.depth[i] for i in got_ids), default=0)
        rest = missing
        if reached <= 1 and any(tree.depth[id(p)] >= 2 for p in missing):
            codes.add("not-recursive")
            rest = [p for p in missing if tree.depth[id(p)] < 2]
        names = [expected_name[id(p)].rsplit(".", 1)[-1] for p in rest]
        if by_name and any(n not in _NAMES for n in names):
            codes.add("by-attribute-name")  # only weight/bias found, the other names missed
        elif names:
            codes.add("missing-parameters")
    first: dict[int, str] = {}
    for name, p, _ in found:
        first.setdefault(id(p), name)
    if any(expected_name[i] != name for i, name in first.items()):
        codes.add("wrong-names")
    order = [expected_name[i] for i in first]
    if order != [n for n, p in tree.params if id(p) in first]:
        codes.add("wrong-order")
    return codes


def check_collect(function: Callable[..., Any], path: Path, engine: Any, seed: int) -> list[str]:
    """The codes of ``function``'s problems over the seeded trees (empty: it passed)."""
    codes: set[str] = set()
    results = []
    for module in collect_trees(engine, seed):
        tree = _survey(module)
        with _watch(engine.nn.Module) as called:
            result = call(function, path, module)
        if called:
            codes.add("uses-builtin")
        results.append((_entries(result, engine), tree))
    if not any(entries for entries, _ in results):  # nothing at all: no pattern to read
        return sorted((codes & {"uses-builtin"}) | {"missing-parameters"})
    by_name = _only_weight_and_bias(results)
    for entries, tree in results:
        codes |= _judge(entries, tree, by_name)
    return sorted(codes)
