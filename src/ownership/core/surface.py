"""The Tensor surface from declarations: one :class:`Declared` per method, its op, its signature.

A "parse then call the op" method is declared once (:mod:`ownership.ops.methods`), and
:func:`install` makes it: plain Python source, compiled once, that binds by torch's signatures and
calls the op through the op table (``ops.maximum``, the point the doctor watches). Hand-written
methods are declared with ``method=``. mypy reads their types from ``declared_methods.pyi``.

>>> from ownership.core import op_registry
>>> declared = Declared("maximum", ("(Tensor other)",), op_registry.ops.maximum, "maximum")
>>> print(declared.source().strip())
def maximum(self=UNBOUND, *args, **kwargs):
    if not isinstance(self, Tensor):
        unbound("maximum", self)
    return ops.maximum(self, D.parse(args, kwargs)[1]["other"])
"""

from __future__ import annotations

import builtins
import copy
import linecache
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ownership.core import op_registry
from ownership.core.binder import Signatures

__all__ = ["INPUT", "INPUT_OUT", "UNBOUND", "Declared", "declare", "install", "no_arguments"]

INPUT = "Tensor input"
"""``function=INPUT``: torch's function takes the method's signatures after ``Tensor input``."""
INPUT_OUT = "Tensor input, out"
"""``function=INPUT_OUT``: the same, with ``Tensor out = None`` last (keyword-only)."""


class _Unbound:
    def __repr__(self) -> str:
        return "UNBOUND"


UNBOUND: Any = _Unbound()
"""The ``self`` of a made method called on the class with no argument (``Tensor.neg()``), which
``unbound`` (:func:`install`'s) refuses as torch refuses a C method without its tensor."""


class Declared:
    """One Tensor method: its name, torch's signatures, the op it calls as ``table_name``, and how
    (``args`` by position, ``keywords`` by name; ``"dim=None"``: read only if bound), or a
    hand-written ``method``. ``function``: the ``torch.<name>`` function's signatures
    (:data:`INPUT`: the method's), or a hand-written one; ``writes_out``, ``same_dtype``: its
    ``out=``; ``function_returns``: its annotation."""

    __slots__ = (
        "aliases",
        "args",
        "doc",
        "function",
        "function_returns",
        "keywords",
        "method",
        "name",
        "op",
        "returns",
        "same_dtype",
        "signatures",
        "table_name",
        "writes_out",
        "written_function",
    )

    def __init__(
        self,
        name: str,
        texts: Sequence[str] | Signatures,
        op: Callable[..., Any] | None,
        table_name: str | None = None,
        *,
        args: Sequence[str] | None = None,
        keywords: Sequence[str] = (),
        numbers_as_tensors: bool = False,
        hidden: bool = False,
        returns: str = "Tensor",
        doc: str = "",
        method: Callable[..., Any] | None = None,
        aliases: Sequence[str] = (),
        function: Sequence[str] | str | Callable[..., Any] | None = None,
        writes_out: bool = False,
        same_dtype: bool | Callable[[dict[str, Any]], bool] = False,
        function_returns: str = "Any",
    ) -> None:
        self.name = name
        if isinstance(texts, Signatures) or not texts or tuple(texts) == ("()",):
            self.signatures = texts if isinstance(texts, Signatures) else None
        else:
            self.signatures = Signatures(
                name, *texts, numbers_as_tensors=numbers_as_tensors, hidden=hidden
            )
        self.op, self.table_name = op, table_name
        if args is None:
            args = _parameters(self.signatures.texts[0]) if self.signatures else ()
        self.args, self.keywords = tuple(args), tuple(keywords)
        self.returns, self.doc = returns, doc
        self.method, self.aliases = method, tuple(aliases)
        self.written_function = function if callable(function) else None
        self.function = None if callable(function) else function
        self.writes_out, self.same_dtype = writes_out, same_dtype
        self.function_returns = function_returns

    def __repr__(self) -> str:
        return f"Declared({self.name!r})"

    def source(self) -> str:
        """The Python source of the method this declaration makes (not of a hand-written one)."""
        op = f"ops.{self.table_name}"
        kwargs = "" if self.signatures is None else ", **kwargs"
        head = (
            f"def {self.name}(self=UNBOUND, *args{kwargs}):\n"
            f"    if not isinstance(self, Tensor):\n"
            f'        unbound("{self.name}", self)\n'
        )
        if self.signatures is None:
            return f"{head}    if args:\n        no_arguments({self.name!r}, args)\n    return {op}(self)\n"
        passed = [_read(spec) for spec in self.args]
        passed += [f"{spec.partition('=')[0]}={_read(spec)}" for spec in self.keywords]
        if len(passed) == 1 and not self.keywords and "=" not in self.args[0]:
            bound = f'D.parse(args, kwargs)[1]["{self.args[0]}"]'
            return f"{head}    return {op}(self, {bound})\n"
        return (
            f"{head}    a = D.parse(args, kwargs)[1]\n    return {op}(self, {', '.join(passed)})\n"
        )

    def make(self, tensor: type, unbound: Callable[[str, Any], Any]) -> Callable[..., Any]:
        """The method of class ``tensor``: the hand-written one, or :meth:`source` compiled
        (called on the class without a tensor first, it calls ``unbound(name, self)``)."""
        if self.method is not None:
            return self.method
        namespace: dict[str, Any] = {
            "ops": op_registry.ops,
            "D": self.signatures,
            "no_arguments": no_arguments,
            "UNBOUND": UNBOUND,
            "unbound": unbound,
            "Any": Any,
            "Tensor": tensor,
            "builtins": builtins,
        }
        source = self.source()
        # a file name inside the package: anomaly mode's traceback leaves its frames out
        filename = os.path.join(os.path.dirname(__file__), f"<declared Tensor.{self.name}>")
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
        method: Callable[..., Any] = namespace[self.name]
        method.__doc__ = self.doc
        method.__annotations__ = {"args": "Any", "return": self.returns}
        if self.signatures is not None:
            method.__annotations__["kwargs"] = "Any"
        method.__module__, method.__qualname__ = tensor.__module__, f"Tensor.{self.name}"
        method.__source__ = source  # type: ignore[attr-defined]
        return method


def no_arguments(name: str, args: tuple[Any, ...]) -> None:
    """torch's refusal of positional arguments to a method that takes none (``x.tanh(1)``)."""
    raise TypeError(f"TensorBase.{name}() takes no arguments ({len(args)} given)")


def _parameters(text: str) -> tuple[str, ...]:
    """The parameter names of a printed signature, in order (``*`` skipped)."""
    names = []
    for part in filter(None, text[1:-1].split(", ")):
        if part != "*":
            names.append(part.partition(" = ")[0].split()[-1])
    return tuple(names)


def _read(spec: str) -> str:
    """The expression that reads the bound argument ``spec`` (``"dim"`` or ``"dim=None"``)."""
    name, given, default = spec.partition("=")
    return f'a.get("{name}", {default})' if given else f'a["{name}"]'


def declare(
    name: str,
    *texts: str,
    op: Callable[..., Any] | None = None,
    inplace: Callable[..., Any] | None = None,
    inplace_doc: str = "",
    inplace_function: bool = False,
    **options: Any,
) -> list[Declared]:
    """The declarations of method ``name`` (``texts``, calling ``op``) and, given ``inplace``, of
    ``name_`` (the same signatures; ``inplace_doc``; ``torch.name_`` if ``inplace_function``)."""
    made = [Declared(name, texts, op, **options)]
    if inplace is not None:
        for option in ("aliases", "function", "writes_out", "same_dtype", "function_returns"):
            options.pop(option, None)
        options["doc"] = inplace_doc or f"``{name}`` in place."
        if inplace_function:
            options["function"] = INPUT
        made.append(Declared(name + "_", texts, inplace, **options))
    return made


def install(
    tensor: type,
    table: Any,
    declarations: Iterable[Declared],
    unbound: Callable[[str, Any], Any],
) -> None:
    """Set the method of every declaration on ``tensor``, its op named as ``table`` names it;
    a made method called on the class without a tensor first calls ``unbound(name, self)``
    (``self`` :data:`UNBOUND` when missing), which raises torch's refusal. A made method's alias
    is made under its own name (torch's ``absolute`` is a C method of its own, not ``abs``); a
    method named as torch's (``TensorBase.pow``) keeps its name."""
    names = {id(getattr(table, name)): name for name in table.__all__}
    for declared in declarations:
        if declared.method is None and declared.table_name is None:
            declared.table_name = names[id(declared.op)]
        method = declared.make(tensor, unbound)
        if not method.__qualname__.startswith(("Tensor.", "TensorBase.")):
            method.__qualname__ = f"Tensor.{declared.name}"
        for name in (declared.name, *declared.aliases):
            if declared.method is None and name != declared.name:
                alias = copy.copy(declared)
                alias.name = name
                method = alias.make(tensor, unbound)
            setattr(tensor, name, method)
