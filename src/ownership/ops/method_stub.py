"""The stub ``ownership/core/declared_methods.pyi``: the Tensor's declared methods as mypy reads them.

The methods made from declarations (:mod:`ownership.ops.methods`) are set on the Tensor at run
time (:func:`ownership.core.surface.install`), so mypy cannot see them; :func:`stub` writes their
signatures for it, and ``tests/build/test_surface_declarations.py`` checks the stub is current
(``--update`` rewrites it).

>>> from ownership.ops import methods
>>> print(next(line for line in stub(methods.DECLARED).splitlines() if "def maximum" in line))
    def maximum(self, *args: Any, **kwargs: Any) -> Tensor: ...
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable

from ownership.core.surface import UNBOUND, Declared

__all__ = ["stub"]


def stub(declarations: Iterable[Declared]) -> str:
    """The source of the stub ``ownership/core/declared_methods.pyi``: each declared method's
    signature as mypy reads it (a hand-written method's own, the others' ``*args, **kwargs``)."""
    lines = [
        '"""The Tensor methods made from declarations, as mypy sees them (generated: do not edit).',
        "",
        "Made by :func:`ownership.ops.method_stub.stub` from :data:`ownership.ops.methods.DECLARED`;",
        "``tests/build/test_surface_declarations.py`` checks it is current (run it with",
        "``--update`` to rewrite it). A stub: at run time the module beside it is ``object``;",
        ":class:`~ownership.core.tensor.Tensor` inherits ``DeclaredMethods`` for the type checker",
        "only, and its methods are set by :func:`ownership.core.surface.install`.",
        '"""',
        "",
        "import builtins",
        "from collections.abc import Iterator, Sequence",
        "from typing import Any",
        "",
        "from numpy.typing import NDArray",
        "",
        "from ownership.core.dtypes import dtype as DType",
        "from ownership.core.storage import Storage",
        "from ownership.core.tensor import Tensor",
        "",
        "class DeclaredMethods:",
        '    """The declared methods of the Tensor (see :mod:`ownership.ops.methods`)."""',
        "",
        "    __slots__ = ()",
        "",
    ]
    for declared in sorted(declarations, key=lambda d: d.name):
        for name in (declared.name, *declared.aliases):
            lines.append(_typed(name, declared))
    return "\n".join(lines) + "\n"


_COMPARISONS = ("__eq__", "__ne__")
"""The operators ``object`` declares too, returning a bool (a tensor's return a tensor)."""


def _typed(name: str, declared: Declared) -> str:
    """The stub line (or lines, as ruff formats a long one) of a declared method."""
    if declared.method is not None:
        signature = inspect.signature(declared.method)
        params = ["self"]
        star = False
        for p in list(signature.parameters.values())[1:]:
            if p.kind is p.KEYWORD_ONLY and not star:
                params.append("*")
            star = star or p.kind in (p.KEYWORD_ONLY, p.VAR_POSITIONAL)
            prefix = "*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else ""
            # an operand ``UNBOUND`` stands for (the check of a call on the class) is the call's
            default = "" if p.default is p.empty or p.default is UNBOUND else " = ..."
            params.append(f"{prefix}{p.name}: {p.annotation}{default}")
        returns = str(signature.return_annotation)
    else:
        params = ["self", "*args: Any"] + ([] if declared.signatures is None else ["**kwargs: Any"])
        returns = declared.returns
    line = f"    def {name}({', '.join(params)}) -> {returns}: ..."
    if name in _COMPARISONS:  # object's return a bool, the Tensor's a tensor
        line += "  # type: ignore[override]"
    if len(line) <= 100:
        return line
    inner = f"        {', '.join(params)}"
    if len(inner) <= 100:
        return f"    def {name}(\n{inner}\n    ) -> {returns}: ..."
    each = "".join(f"        {p},\n" for p in params)
    return f"    def {name}(\n{each}    ) -> {returns}: ..."
