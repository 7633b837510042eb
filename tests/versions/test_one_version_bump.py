"""Exactly one line of the engine moves a version: ``VersionCounter.bump`` (issue 10).

Every in-place write, ``ctx.mark_dirty``, ``increment_version`` and the in-place view ops call it;
no other line may add to a counter or assign its value, but for the one fast path of the in-place
ops' ``inplace_rules.written``, which makes bump's write inline and is checked against it here.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

import ownership
from ownership.inference_mode import INPLACE_MESSAGE
from ownership.inplace_rules import written
from ownership.storage import InferenceCounter, VersionCounter

SRC = Path(ownership.__file__).parent
COUNTER_FIELDS = {"value", "_count", "_version"}


class _CounterWrites(ast.NodeVisitor):
    """Collect ``(enclosing function, kind)`` of each write to a counter field."""

    def __init__(self) -> None:
        self.functions: list[str] = ["<module>"]
        self.found: list[tuple[str, str]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()

    def _record(self, targets: list[ast.expr], kind: str) -> None:
        for t in targets:
            if isinstance(t, ast.Attribute) and t.attr in COUNTER_FIELDS:
                self.found.append((self.functions[-1], kind))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._record([node.target], "increment")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._record(node.targets, "assign")
        self.generic_visit(node)


def _writes() -> list[tuple[str, str, str]]:
    """(file, enclosing function, kind) of every write to a counter field in the engine."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        visitor = _CounterWrites()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        found += [(path.relative_to(SRC).as_posix(), fn, kind) for fn, kind in visitor.found]
    return found


def test_one_line_increments_a_version() -> None:
    increments = [w for w in _writes() if w[2] == "increment"]
    assert increments == [
        ("inplace_rules.py", "written", "increment"),
        ("storage.py", "bump", "increment"),
    ]


def test_no_other_code_assigns_a_version() -> None:
    """Outside storage.py nothing assigns a counter; inside, only the constructors and the
    inference counter's guarded setter (which ``bump`` goes through) do."""
    assigns = sorted({w[:2] for w in _writes() if w[2] == "assign"})
    assert assigns == [("storage.py", "__init__"), ("storage.py", "value")]


def test_bump_adds_one_and_fresh_starts_at_zero() -> None:
    c = VersionCounter()
    c.bump()
    c.bump()
    assert c.value == 2
    assert c.fresh().value == 0 and not c.fresh().inference


def test_an_inference_counter_bumps_only_in_inference_mode() -> None:
    counter = InferenceCounter()
    assert counter.fresh().inference
    with pytest.raises(RuntimeError) as caught:
        counter.bump()
    assert str(caught.value) == INPLACE_MESSAGE
    with ownership.inference_mode():
        counter.bump()
    assert counter.value == 1


@pytest.mark.parametrize("kind", ["made", "unmade", "inference"])
def test_written_bumps_as_bump_does(kind: str) -> None:
    """``written``'s inline bump against ``bump``: the same versions on an existing counter and
    on a tensor whose counter is not made yet, and the same refusal of an inference counter
    outside inference mode."""

    def tensor() -> ownership.Tensor:
        if kind == "inference":
            with ownership.inference_mode():
                return ownership.ones(2)
        t = ownership.ones(2) + 1
        if kind == "made":
            t._version_counter.bump()
        return t

    def outcome(t: ownership.Tensor, move: Callable[[ownership.Tensor], None]) -> object:
        try:
            move(t)
        except RuntimeError as e:
            return str(e)
        return t._version_counter.value

    t = tensor()
    assert (t._lazy_counter is None) == (kind == "unmade")
    fast = outcome(t, lambda t: written(t, "AddBackward0"))
    slow = outcome(tensor(), lambda t: t._version_counter.bump())
    assert fast == slow == (INPLACE_MESSAGE if kind == "inference" else 2 if kind == "made" else 1)
