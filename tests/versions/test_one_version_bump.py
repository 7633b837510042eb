"""Exactly one line of the engine moves a version: ``VersionCounter.bump`` (issue 10).

Every in-place write, ``ctx.mark_dirty``, ``increment_version`` and the in-place view ops call it;
no other line may add to a counter or assign its value.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ownership
from ownership.core.inference_mode import INPLACE_MESSAGE
from ownership.core.storage import InferenceCounter, VersionCounter

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
    assert increments == [("core/storage.py", "bump", "increment")]


def test_no_other_code_assigns_a_version() -> None:
    """Outside storage.py nothing assigns a counter; inside, only the constructors and the
    inference counter's guarded setter (which ``bump`` goes through) do."""
    assigns = sorted({w[:2] for w in _writes() if w[2] == "assign"})
    assert assigns == [("core/storage.py", "__init__"), ("core/storage.py", "value")]


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
