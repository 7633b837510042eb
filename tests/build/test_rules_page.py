"""The rules page (``docs/reference/rules.md``) gives each of the unit's ten rules a stable id and
the layer it lives in, and every rule, of the unit or of parity, at least one ``enforced-by``
entry; the build checks each entry against the engine's source (``docs/_ext/rule_map.py``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "rules.md"

UNIT_RULES = {
    "view-shares-counter": "core",
    "bump": "core",
    "version-error": "core",
    "leaf-inplace": "core",
    "detach-vs-data": "core",
    "accumulation": "core",
    "setattr-registers": "nn",
    "parameters-recursion": "nn",
    "state-dict-buffers": "nn",
    "sgd-step": "optim",
}
RULE = re.compile(r"^\.\. rule:: (?P<id>\S+)\n   :layer: (?P<layer>\S+)$", re.MULTILINE)


def _rules() -> list[tuple[str, str, str]]:
    """``(id, layer, the text up to the next rule)`` in page order."""
    text = PAGE.read_text()
    found = list(RULE.finditer(text))
    ends = [m.start() for m in found[1:]] + [len(text)]
    return [(m["id"], m["layer"], text[m.end() : end]) for m, end in zip(found, ends, strict=True)]


def test_the_ten_rules_of_the_unit_have_their_ids_and_layers() -> None:
    rules = {rule_id: layer for rule_id, layer, _ in _rules()}
    assert {k: rules.get(k) for k in UNIT_RULES} == UNIT_RULES
    assert set(rules) - set(UNIT_RULES), "the parity rules are on the page too"
    assert all(rules[k] == "parity" for k in set(rules) - set(UNIT_RULES))


def test_rule_ids_are_unique_and_every_rule_is_enforced_somewhere() -> None:
    rules = _rules()
    ids = [rule_id for rule_id, _, _ in rules]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", rule_id) for rule_id in ids)
    for rule_id, _, body in rules:
        assert ".. enforced-by:: ownership." in body, f"rule {rule_id} names no enforcing code"
