"""The Tensor surface from declarations: one :class:`Declared` per method, its op, its signature.

Most of torch's Tensor methods are "parse then call the op": ``x.maximum(y)`` binds its
arguments by torch's printed signature (``"(Tensor other)"``, torch's messages when they do not
fit) and calls the op ``maximum`` of the op table with them. Such a method is not written out: it
is declared, once, beside the other methods of its op family (:mod:`ownership.ops.methods`)::

    declare("maximum", "(Tensor other)", op=table.maximum,
            doc="The elementwise larger of ``self`` and the tensor ``other``.")

and :func:`install` (called by :func:`ownership.installation.install`) makes the method from it
and sets it on :class:`~ownership.core.tensor.Tensor`. A declaration names its op by the function
itself, so a reader goes from ``x.maximum`` to its op in one hop; the method calls it through the
op table by name (``ops.maximum``), the one point every op call passes, which the doctor watches
(:func:`ownership.core.op_registry.watch`). A method whose call needs more than binding
(overloads that reach different ops, Python's own binding) is written by hand and declared with
``method=``: it is set on the Tensor the same way.

The method made is plain Python source, compiled once (as :mod:`dataclasses` makes ``__init__``):
the binding's ``parse``, one lookup in the op table, the op. Its text is kept as the method's
``__source__``:

>>> from ownership.core import op_registry
>>> declared = Declared("maximum", ("(Tensor other)",), op_registry.ops.maximum, "maximum")
>>> print(declared.source().strip())
def maximum(self, *args, **kwargs):
    return ops.maximum(self, D.parse(args, kwargs)[1]["other"])

The methods are typed for mypy by the stub ``ownership/core/declared_methods.pyi``, generated from
the declarations (:func:`ownership.ops.method_stub.stub`); core's Tensor inherits it for the type
checker only (at run time ``ownership/core/declared_methods.py`` makes it ``object``).
``tests/build/test_surface_declarations.py`` checks it is current.
"""

from __future__ import annotations

import builtins
import linecache
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ownership.core import op_registry
from ownership.core.argument_values import no_arguments
from ownership.core.binder import Signatures

__all__ = ["INPUT", "INPUT_OUT", "Declared", "declare", "install"]

INPUT = "Tensor input"
"""``function=INPUT``: torch's function takes the method's signatures after ``Tensor input``
(:func:`ownership.ops.methods.function_texts` writes them)."""
INPUT_OUT = "Tensor input, out"
"""``function=INPUT_OUT``: the same, with ``Tensor out = None`` last (keyword-only)."""


class Declared:
    """One Tensor method: its name, torch's signatures (none: it takes no argument), the op it
    calls under its table name ``table_name``, and how: ``args``, the bound arguments passed after
    ``self`` by position, ``keywords`` by name; ``"dim=None"`` reads an argument only some
    overloads have (``a.get("dim", None)``). ``method``: a hand-written method instead.

    ``function``: torch's signatures of the ``torch.<name>`` function of the same op (and of each
    alias), which parses them and calls the method of its ``input``
    (:mod:`ownership.functions` makes it); :data:`INPUT` or :data:`INPUT_OUT` derives them from
    the method's (:func:`ownership.ops.methods.function_texts`). ``writes_out``: the function
    writes a given ``out=`` (``same_dtype`` as :func:`ownership.ops.out_variants.with_out` takes
    it), else its parser refuses one.
    ``function_returns``: the made function's return annotation. A function that needs more than
    that (a number first, overloads that reach different ops) is written by hand and declared
    as ``function=`` itself (``written_function``). None: no torch function."""

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
        self.op = op
        self.table_name = table_name
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
        if self.signatures is None:
            return (
                f"def {self.name}(self, *args):\n"
                f"    if args:\n"
                f"        no_arguments({self.name!r}, args)\n"
                f"    return {op}(self)\n"
            )
        passed = [_read(spec) for spec in self.args]
        passed += [f"{spec.partition('=')[0]}={_read(spec)}" for spec in self.keywords]
        if len(passed) == 1 and not self.keywords and "=" not in self.args[0]:
            bound = f'D.parse(args, kwargs)[1]["{self.args[0]}"]'
            return f"def {self.name}(self, *args, **kwargs):\n    return {op}(self, {bound})\n"
        return (
            f"def {self.name}(self, *args, **kwargs):\n"
            f"    a = D.parse(args, kwargs)[1]\n"
            f"    return {op}(self, {', '.join(passed)})\n"
        )

    def make(self, tensor: type) -> Callable[..., Any]:
        """The method of class ``tensor``: the hand-written one, or its :meth:`source` compiled
        (in a namespace of its own, where its annotations are names too)."""
        if self.method is not None:
            return self.method
        namespace: dict[str, Any] = {
            "ops": op_registry.ops,
            "D": self.signatures,
            "no_arguments": no_arguments,
            "Any": Any,
            "Tensor": tensor,
            "builtins": builtins,
        }
        source = self.source()
        # a file name inside the package (anomaly mode's traceback leaves the engine's frames
        # out by it), its lines known to tracebacks
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
    """The declarations of method ``name`` (torch's signatures ``texts``, calling ``op``) and, if
    ``inplace`` is given, of its in-place variant ``name_`` (the same signatures, calling
    ``inplace``; documented by ``inplace_doc``, else as ``name`` in place; with the function
    ``torch.name_`` if ``inplace_function``, which takes ``Tensor input`` first and no ``out``)."""
    made = [Declared(name, texts, op, **options)]
    if inplace is not None:
        for option in ("aliases", "function", "writes_out", "same_dtype", "function_returns"):
            options.pop(option, None)
        options["doc"] = inplace_doc or f"``{name}`` in place."
        if inplace_function:
            options["function"] = INPUT
        made.append(Declared(name + "_", texts, inplace, **options))
    return made


def install(tensor: type, table: Any, declarations: Iterable[Declared]) -> None:
    """Set the method of every declaration on ``tensor``, each op named as ``table`` (the op
    table's module, :mod:`ownership.ops.table`) names it. Called once, by
    :func:`ownership.installation.install`."""
    names = {id(getattr(table, name)): name for name in table.__all__}
    for declared in declarations:
        if declared.method is None and declared.table_name is None:
            declared.table_name = names[id(declared.op)]
        method = declared.make(tensor)
        method.__qualname__ = f"Tensor.{declared.name}"
        for name in (declared.name, *declared.aliases):
            setattr(tensor, name, method)
