"""Backward formulas read torch's saved values by name and nothing else from the saved dict.

A backward is ``backward(node, s, g)``: ``s`` holds exactly what torch shows as
``grad_fn._saved_<name>``; which inputs need a gradient, input shapes and the like are typed
slots of ``node``. Read from the source: a backward that looks up a private key, or uses
``s.get`` (whose default would turn a value its op forgot to set into a missing gradient),
fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ownership
import ownership.ops
from ownership.core.autograd.node import OpNode
from ownership.ops.arithmetic import bw_mul

OPS_DIR = Path(next(iter(ownership.ops.__path__)))


def backward_functions(tree: ast.AST) -> list[ast.FunctionDef | ast.Lambda]:
    """Functions and lambdas with a backward's parameters: ``(node, s, g)`` (``gg`` for a grad)."""
    found: list[ast.FunctionDef | ast.Lambda] = []
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.Lambda):
            names = [a.arg for a in fn.args.args]
            if len(names) == 3 and names[:2] == ["node", "s"] and names[2] in ("g", "gg"):
                found.append(fn)
    return found


def misreads(fn: ast.FunctionDef | ast.Lambda) -> list[str]:
    """How ``fn`` reads its saved dict ``s`` other than ``s["<torch's name>"]``."""
    bad = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "s":
            bad.append(f"s.{n.attr}")
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == "s":
            key = n.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                bad.append(f"s[{ast.unparse(key)}]")
            elif key.value.startswith("_"):
                bad.append(f"s[{key.value!r}]")
    return bad


def test_backwards_read_only_torchs_saved_names() -> None:
    found, bad = 0, []
    for path in sorted(OPS_DIR.glob("*.py")):
        for fn in backward_functions(ast.parse(path.read_text(encoding="utf-8"))):
            found += 1
            bad += [f"{path.name}:{fn.lineno}: {m}" for m in misreads(fn)]
    assert found > 60, f"only {found} backward functions found: did their signature change?"
    assert not bad, "\n".join(bad)


def test_the_check_finds_a_private_key_and_a_get() -> None:
    source = (
        "def bw(node, s, g):\n"
        "    return (g[0] * s['_other_shape'], s.get('self'))\n"
        "f = lambda node, s, gg: (s['result'],)\n"
    )
    fns = backward_functions(ast.parse(source))
    assert [misreads(fn) for fn in fns] == [["s['_other_shape']", "s.get"], []]


def test_a_slot_its_op_did_not_set_raises() -> None:
    """A backward whose op forgot to say which inputs need a gradient fails loudly: no default
    turns the omission into a missing gradient."""
    node = OpNode("MulBackward0", ((None, 0), (None, 0)), bw_mul)
    with pytest.raises(AttributeError, match="needed"):
        node.apply((ownership.ones(2),))
