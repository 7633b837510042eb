"""The binder: how a method binds a call's ``(args, kwargs)`` to the signatures it declares.

A method declares its overloads as torch prints them (:class:`Signatures`) and binds each call
with ``overload, bound = SUM.parse(args, kwargs)``. torch's parser (parity's
``ownership.arguments``) is injected as the binder by :func:`install`; until then (core alone) a
call binds as Python binds it: the first overload that takes it, no type checked.

>>> TRANSPOSE = Signatures("transpose", "(int dim0, int dim1)")
>>> python_binding(TRANSPOSE).parse((0,), {"dim1": 1})
(0, {'dim0': 0, 'dim1': 1})
>>> python_binding(TRANSPOSE).parse((0,), {})
Traceback (most recent call last):
TypeError: missing a required argument: 'dim1'
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Binding", "Signatures", "install", "python_binding"]

Bound = tuple[int, dict[str, Any]]
"""The index of the overload a call took, and every parameter's argument by name."""


class Binding(Protocol):
    """What a binder makes of one declaration: ``parse`` binds a call or raises TypeError."""

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Bound: ...


class Signatures:
    """The overloads of one method or function, declared as torch prints them, and their binding.

    ``numbers_as_tensors``: a ``Tensor`` parameter also takes a number; ``hidden``: torch has
    unprinted overloads; ``writes_out``: the function writes a given ``out=``."""

    __slots__ = ("binding", "hidden", "name", "numbers_as_tensors", "parse", "texts", "writes_out")

    def __init__(
        self, name: str, *texts: str, numbers_as_tensors: bool = False, hidden: bool = False
    ) -> None:
        self.name, self.texts, self.hidden = name, texts, hidden
        self.numbers_as_tensors, self.writes_out = numbers_as_tensors, False
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


_DECLARED: list[Signatures] = []  # to be bound again when a binder is installed


def declared() -> list[Signatures]:
    """Every declaration made so far."""
    return list(_DECLARED)


class _PythonBinding:  # Python's binding, the texts read at the first call
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
    """A printed signature as Python's: each parameter's last word before ``=`` is its name."""
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
    """Bind every declaration, made and to come, with ``binder`` (torch's parser), once."""
    global _binder
    _binder = binder
    for declaration in _DECLARED:
        declaration.bind()
