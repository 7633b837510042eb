"""The rules page (``docs/reference/rules.md``) gives each of the unit's ten rules a stable id and
the layer it lives in, and every rule, of the unit or of parity, at least one ``enforced-by``
entry; the build checks each entry against the engine's source (``docs/_ext/rule_map.py``, whose
``read_rules`` reads the page here as the tour does)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from rule_map import RULES_PAGE, RuleEntry, defined_in, read_rules, resolve

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


def _rules() -> list[RuleEntry]:
    return read_rules(RULES_PAGE.read_text())


def test_every_rule_on_the_page_is_read() -> None:
    assert len(_rules()) == RULES_PAGE.read_text().count("\n.. rule:: ")
    assert all(rule.title for rule in _rules()), "each rule has its section title"


def test_the_ten_rules_of_the_unit_have_their_ids_and_layers() -> None:
    rules = {rule.id: rule.layer for rule in _rules()}
    assert {k: rules.get(k) for k in UNIT_RULES} == UNIT_RULES
    assert set(rules) - set(UNIT_RULES), "the parity rules are on the page too"
    assert all(rules[k] == "parity" for k in set(rules) - set(UNIT_RULES))


def test_rule_ids_are_unique_and_every_rule_is_enforced_somewhere() -> None:
    rules = _rules()
    ids = [rule.id for rule in rules]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", rule_id) for rule_id in ids)
    for rule in rules:
        assert rule.enforced_by, f"rule {rule.id} names no enforcing code"
        assert all(path.startswith("ownership.") for path in rule.enforced_by), rule


def test_each_entry_names_the_file_that_defines_its_function() -> None:
    """An entry's "In" file is where the function's source is, even when the rule's path reaches
    it through a subclass (``Module.state_dict`` is written in ``nn/module_state.py``)."""
    for rule in _rules():
        for path in rule.enforced_by:
            module, _, _, obj = resolve(path)
            fn = obj.fget if isinstance(obj, property) else getattr(obj, "__func__", obj)
            source = Path(inspect.getsourcefile(inspect.unwrap(fn)) or "").as_posix()
            assert source.endswith("/" + defined_in(fn, module)), (path, source)
