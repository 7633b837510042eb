"""The pages' parity check (``docs/_ext/parity.py``) runs each cell in torch and in ownership and
compares the names the cell bound: a name counts as bound when its object is another one after the
cell, by identity, whatever address the new object took."""

from __future__ import annotations

import parity


def test_a_name_rebound_to_an_object_at_the_freed_address_counts_as_bound() -> None:
    checker = parity.Parity()
    namespace = checker.shadows["torch"]
    namespace["x"] = float("1.5")
    # the old float is freed by `del`; CPython's float free list gives its address to the next
    run = checker._execute("del x\nx = float('2.5')", namespace)
    assert list(run["bound"]) == ["x"] and run["bound"]["x"] == 2.5


def test_a_name_left_alone_is_not_bound() -> None:
    checker = parity.Parity()
    namespace = checker.shadows["ownership"]
    namespace["x"] = float("1.5")
    assert checker._execute("y = x * 2", namespace)["bound"] == {"y": 3.0}
