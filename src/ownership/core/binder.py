"""The binder: how a method binds a call's ``(args, kwargs)`` to the signatures it declares.

A Tensor method (or a ``torch`` function of the ops) declares its overloads as data, each as torch
prints it (:class:`Signatures`: ``"(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype
dtype = None)"``), and binds every call through its declaration: ``overload, bound =
SUM.parse(args, kwargs)``. Core reads no further into that text: torch's argument parser, its type
rules and its messages (``argument 'dim' (position 1) must be int, not float``) are parity's,
:class:`ownership.arguments.Parser`. It is injected here, as the binder, by
:func:`ownership.installation.install`; core's doctests show the unit's rules, the parser's own
show its messages.

Until a binder is installed (core alone), a call binds as Python binds it: each overload's
parameter names and defaults, tried in order, the first that takes the call wins, and when none
does Python's own TypeError of the first; no type is checked, and an int list is not taken as
varargs (``view(2, 3)``): those are torch's rules, the parser's.

>>> TRANSPOSE = Signatures("transpose", "(int dim0, int dim1)")
>>> python_binding(TRANSPOSE).parse((0,), {"dim1": 1})
(0, {'dim0': 0, 'dim1': 1})
>>> python_binding(TRANSPOSE).parse((0,), {})
Traceback (most recent call last):
TypeError: missing a required argument: 'dim1'

The binding sits on every method call's path: :func:`install` stores the binding's own ``parse``
on each declaration, so a call costs one attribute lookup and the binder's call, nothing more.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Binding", "Signatures", "install", "python_binding"]

Bound = tuple[int, dict[str, Any]]
"""The index of the overload a call took and its arguments by name, every parameter's."""


class Binding(Protocol):
    """What a binder makes of one declaration: ``parse`` binds a call or raises TypeError."""

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Bound: ...


class Signatures:
    """The overloads of one method or function, declared as torch prints them, and their binding.

    ``numbers_as_tensors``: a ``Tensor`` parameter also takes a number (``x.add(2)``);
    ``hidden``: torch has overloads it never prints, so a lone printed one is still reported
    as an invalid combination; ``writes_out``: the function writes a given ``out=``
    (:func:`ownership.ops.out_variants.with_out`), else the binder refuses one."""

    __slots__ = ("binding", "hidden", "name", "numbers_as_tensors", "parse", "texts", "writes_out")

    def __init__(
        self, name: str, *texts: str, numbers_as_tensors: bool = False, hidden: bool = False
    ) -> None:
        self.name = name
        self.texts = texts
        self.numbers_as_tensors = numbers_as_tensors
        self.hidden = hidden
        self.writes_out = False
        self.binding: Binding
        self.parse: Callable[[tuple[Any, ...], dict[str, Any]], Bound]
        _DECLARED.append(self)
        self.bind()

    def bind(self) -> None:
        """(Re)make this declaration's binding with the installed binder."""
        self.binding = _binder(self)
        self.parse = self.binding.parse

    def __repr__(self) -> str:
        return f"Signatures({self.name!r}, {', '.join(map(repr, self.texts))})"


_DECLARED: list[Signatures] = []
"""Every declaration made, to be bound again when a binder is installed."""


def declared() -> list[Signatures]:
    """Every declaration made so far."""
    return list(_DECLARED)


class _PythonBinding:
    """Plain Python binding of a declaration's overloads (parameter names and defaults only),
    read from their texts at the first call."""

    def __init__(self, declaration: Signatures) -> None:
        self.declaration = declaration
        self.overloads: list[inspect.Signature] = []

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Bound:
        if not self.overloads:
            self.overloads = [_python_signature(text) for text in self.declaration.texts]
        for index, overload in enumerate(self.overloads):
            try:
                bound = overload.bind(*args, **kwargs)
            except TypeError:
                continue
            bound.apply_defaults()
            return index, dict(bound.arguments)
        self.overloads[0].bind(*args, **kwargs)  # Python's own TypeError
        raise AssertionError("unreachable")  # pragma: no cover


def _python_signature(text: str) -> inspect.Signature:
    """A printed signature read as Python's: each parameter's last word before ``=`` is its
    name, what follows its default; ``*`` starts the keyword-only ones."""
    kind: inspect._ParameterKind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = []
    for part in filter(None, text[1:-1].split(", ")):
        if part == "*":
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        declared_as, has_default, default = part.partition(" = ")
        value: Any = inspect.Parameter.empty
        if has_default:
            try:
                value = ast.literal_eval(default)
            except ValueError:
                value = default
        params.append(inspect.Parameter(declared_as.split()[-1], kind, default=value))
    return inspect.Signature(params)


def python_binding(declaration: Signatures) -> Binding:
    """The binder of core alone: Python's binding (see the module's docstring)."""
    return _PythonBinding(declaration)


_binder: Callable[[Signatures], Binding] = python_binding


def install(binder: Callable[[Signatures], Binding]) -> None:
    """Bind every declaration, those made and those to come, with ``binder``. Called once, by
    :func:`ownership.installation.install`, with torch's parser."""
    global _binder
    _binder = binder
    for declaration in _DECLARED:
        declaration.bind()
