"""An IPython extension: every cell of a guide page is also run in ownership, and must agree.

A guide page shows PyTorch only. Its first cell (tagged ``remove-cell``, so the reader never sees
it) runs ``%load_ext parity``. From then on, before each cell runs, its source is executed twice
more, in two shadow namespaces that live as long as the kernel: once with ``torch`` and once with
every ``import torch ...`` resolved to ``ownership``. The two shadow runs must agree on

- what the cell raised (exception class and exact message), or that it raised nothing;
- what it printed (numbers compared with a tolerance, all other text exactly);
- the value of its last expression and of every name it bound, reduced to facts by
  :func:`ownership.compare.facts` (values, dtype, shape, ``requires_grad``, ``grad_fn``,
  ``_version``, ...);
- the warnings it emitted.

When they disagree the cell raises ``AssertionError: the engines disagree`` and the page fails to
build. ``%parity_skip`` (in a hidden cell) exempts the next cell, for a cell whose point is
something only PyTorch has. The kernels find this module because the build puts ``docs/_ext`` on
their ``PYTHONPATH`` (see ``guide_checks``).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import io
import re
import types
from typing import Any

from ownership.compare import Raised, differences, facts, run

_SCALARS = (bool, int, float, str)

_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+|\bnan\b|-?\binf\b")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_RTOL, _ATOL = 1e-4, 2e-4  # printed numbers are rounded (4 decimals by default)


def _importer(real: Any) -> Any:
    """``__import__`` with ``torch`` and ``torch.x`` resolved to ``ownership`` and ``ownership.x``."""

    def __import__(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            mapped = "ownership" + name[len("torch") :]
            importlib.import_module(mapped)
            return real(mapped, globals, locals, fromlist, level)
        return real(name, globals, locals, fromlist, level)

    return __import__


def _namespace(as_ownership: bool) -> dict[str, Any]:
    table = dict(vars(builtins))
    if as_ownership:
        table["__import__"] = _importer(builtins.__import__)
    return {"__builtins__": table, "__name__": "__main__"}


def _comparable(value: Any) -> bool:
    """Values whose facts mean something across engines (not functions, classes, modules ...)."""
    if isinstance(value, (types.FunctionType, types.ModuleType, type, types.BuiltinFunctionType)):
        return False
    if isinstance(value, (list, tuple, dict)):
        items = value.values() if isinstance(value, dict) else value
        return all(_comparable(v) for v in items)
    kind = type(value).__name__
    tensor = all(hasattr(value, a) for a in ("is_inference", "detach", "shape", "dtype"))
    return value is None or isinstance(value, _SCALARS) or tensor or kind in ("dtype", "Size")


def _split_numbers(text: str) -> tuple[list[str], list[str]]:
    text = _ADDRESS.sub(" at 0x…", text)
    return _NUMBER.split(text), _NUMBER.findall(text)


def _same_printout(a: str, b: str) -> bool:
    (words_a, nums_a), (words_b, nums_b) = _split_numbers(a), _split_numbers(b)
    if words_a != words_b or len(nums_a) != len(nums_b):
        return False
    return all(
        x == y or abs(float(x) - float(y)) <= _ATOL + _RTOL * abs(float(y))
        for x, y in zip(nums_a, nums_b, strict=True)
    )


_UNBOUND = object()
"""What a name not yet bound before a cell had."""


class Parity:
    """The two shadow namespaces and the check each cell makes."""

    def __init__(self) -> None:
        self.shadows = {"torch": _namespace(False), "ownership": _namespace(True)}
        self.skip_next = False

    def _execute(self, source: str, namespace: dict[str, Any]) -> Any:
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        # the names' objects before the cell, held until it ends: a name bound in the cell is one
        # whose object is another one now (by identity; comparing ids alone would miss a new
        # object that took a freed one's address, in one engine and not the other)
        before = dict(namespace)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            try:
                exec(compile(tree, "<cell>", "exec"), namespace)
                value = None
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
                error = None
            except Exception as exc:  # the exception is part of what is compared
                value, error = None, Raised(type(exc).__name__, str(exc))
        bound = {
            k: v
            for k, v in namespace.items()
            if not k.startswith("_") and before.get(k, _UNBOUND) is not v and _comparable(v)
        }
        return {
            "raised": error,
            "printed": printed.getvalue(),
            "value": value if _comparable(value) else None,
            "bound": bound,
        }

    def check(self, source: str) -> None:
        """Run ``source`` in both shadows; raise ``AssertionError`` unless they agree."""
        if self.skip_next:
            self.skip_next = False
            return
        runs = {
            name: run(lambda _, ns=ns: self._execute(source, ns), None)
            for name, ns in self.shadows.items()
        }
        a, b = runs["torch"], runs["ownership"]
        problems: list[str] = []
        if isinstance(a.facts, Raised) or isinstance(b.facts, Raised):  # the harness itself
            problems.append(f"the cell could not be replayed: {a.facts} | {b.facts}")
        else:
            ra, rb = a.returned, b.returned
            if ra["raised"] != rb["raised"]:
                problems.append(f"raised: torch {ra['raised']} | ownership {rb['raised']}")
            if not _same_printout(ra["printed"], rb["printed"]):
                problems.append(f"printed:\n{ra['printed']}\n---\n{rb['printed']}")
            problems += differences(facts(ra["value"]), facts(rb["value"]), path="value")
            if list(ra["bound"]) != list(rb["bound"]):
                problems.append(f"bound names: {list(ra['bound'])} != {list(rb['bound'])}")
            else:
                problems += differences(facts(ra["bound"]), facts(rb["bound"]), path="names")
            if a.warnings != b.warnings:
                problems.append(f"warnings: {a.warnings} != {b.warnings}")
        if problems:
            raise AssertionError("the engines disagree:\n" + "\n".join(problems))


def load_ipython_extension(ip: Any) -> None:
    """Install the check: each later cell starts with ``__parity__.check(<its source>)``."""
    parity = Parity()
    ip.user_ns["__parity__"] = parity

    def prepend_check(lines: list[str]) -> list[str]:
        source = "".join(lines)
        if not source.strip() or source.lstrip().startswith("%"):
            return lines
        return [f"__parity__.check({source!r})\n", *lines]

    def skip(_: str) -> None:
        parity.skip_next = True

    ip.input_transformers_post.append(prepend_check)
    ip.register_magic_function(skip, "line", "parity_skip")
