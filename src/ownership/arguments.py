"""torch's Python argument parser: each signature as torch prints it, its type rules, its messages.

torch binds the arguments of every Python call into a C++ function through one parser
(``torch/csrc/utils/python_arg_parser.cpp``); when no signature matches, that parser writes the
``TypeError`` a learner sees. :class:`Parser` reproduces it: it is built from the signatures exactly
as torch prints them (``"(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)"``)
and raises torch's messages word for word: ``argument 'dim' (position 1) must be int, not float``,
``takes 1 positional argument but 2 were given``, ``missing 1 required positional arguments``,
``failed to unpack the object at pos 2``, and, when several signatures are plausible, ``received an
invalid combination of arguments - got (...), but expected one of: ...``.

A keyword may also be given by the numpy name torch accepts for it (``axis=`` for ``dim``,
``keepdims=`` for ``keepdim``: ``ownership.overload.NUMPY_NAMES``).

An int list written ``tuple of ints[1]`` also takes one int (torch's ``int[1]``) and one written
``tuple of ints?`` also takes None; neither mark is printed. A signature whose only positional
parameter is an int list takes it as varargs (``view(2, 3)``), as torch's does. The message for
"no overload fits" is :func:`ownership.invalid_arguments.invalid_combination`; one overload, its
binding and its messages, ``ownership.overload.Signature``; the checks of one value (an int,
a number, a tensor), ``ownership.ops.argument_values``; of an int list's elements,
``ownership.argument_checks``.

>>> sum_ = Parser("sum", "(*, torch.dtype dtype = None)",
...               "(tuple of ints[1] dim, bool keepdim = False, *, torch.dtype dtype = None)")
>>> sum_.parse((1,), {})
(1, {'dim': (1,), 'keepdim': False, 'dtype': None})
>>> sum_.parse((0.5,), {})
Traceback (most recent call last):
...
TypeError: sum() received an invalid combination of arguments - got (float), but expected one of:
 * (*, torch.dtype dtype = None)
 * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ownership.argument_checks import python_ints
from ownership.core.binder import Signatures as Declaration
from ownership.core.dtypes import dtype as DType
from ownership.invalid_arguments import invalid_combination
from ownership.ops.argument_values import is_tensor
from ownership.ops.out_variants import refuse_out
from ownership.overload import Param, Signature

__all__ = ["Parser", "torch_binding"]

_PLAIN = (int, float, bool, type(None), DType)

Plan = Callable[[tuple[Any, ...], dict[str, Any]], "tuple[int, dict[str, Any]] | None"]
"""A remembered binding of one pattern of argument types (:meth:`Parser.parse`): the bound
arguments of a call of that pattern, or None when the call's values make it another case."""


def _reader(arg: Any, param: Param, convert: Callable[[Any], Any] | None) -> Any:
    """How a plan reads an argument of ``arg``'s type bound to ``param``: ``None`` as given,
    else a function whose None sends the call to the parser; ``False`` when the binding of this
    type depends on more than the type (no plan)."""
    if arg is None:
        return None  # None binds as None (or the default None) whatever the parameter
    if isinstance(arg, tuple | list):
        # an int list of Python ints binds the same whatever its length and values; any other
        # element may choose another signature or raise (the parser reads it)
        if param.type == "tuple of ints" and python_ints(arg) is not None:
            return python_ints
        return False
    if type(arg) in _PLAIN or (param.type == "Tensor" and is_tensor(arg)):
        return convert
    return False


def _plan(index: int, sig: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Plan | None:
    """How to bind again, without trying the overloads, the calls whose arguments have the types
    of ``args`` and ``kwargs``, which bound to overload ``index`` (``sig``); None when their
    values may bind otherwise (a keyword by its numpy name, a tensor read as a number, a list of
    anything but Python ints, an int list given one by one of anything but Python ints).

    A plan takes each value where the parser put it and converts it as the parser converts it
    (:meth:`ownership.overload.Signature._converter`); it keeps the defaults of the parameters
    the call leaves out, never a value the call gave (a tensor kept here would outlive its last
    reference)."""
    params = {p.name: (p, convert) for p, convert in zip(sig.params, sig.converters, strict=True)}
    if any(name not in params for name in kwargs):
        return None
    first = sig.params[0] if sig.params else None
    nargs = len(args)
    positional: list[tuple[str, Any]] = []
    if (
        first is not None
        and sig.varargs
        and nargs
        and not isinstance(args[0], tuple | list)
        and not (nargs == 1 and first.size)
    ):  # the int list given one by one (``view(2, 3)``): the parser took ``args`` as it
        if python_ints(args) is None:
            return None
        varargs = first.name
    else:
        varargs = ""
        for arg, p in zip(args, sig.params, strict=False):
            read = _reader(arg, p, params[p.name][1])
            if read is False:
                return None
            positional.append((p.name, read))
    keywords = {}
    for name, value in kwargs.items():
        p, convert = params[name]
        read = _reader(value, p, convert)
        if read is False:
            return None
        keywords[name] = read
    given = {name for name, _ in positional} | set(keywords) | ({varargs} if varargs else set())
    defaults = {p.name: None if p.name in given else p.default for p in sig.params}
    if len(given) == len(defaults) and not keywords:  # every parameter given by position
        if varargs:  # the commonest: ``view(2, 3)``, ``permute(1, 0)``

            def bind_ints(
                args: tuple[Any, ...], kwargs: dict[str, Any]
            ) -> tuple[int, dict[str, Any]]:
                return index, {varargs: args}

            return bind_ints

        if not positional:  # ``squeeze()``, ``sum()``

            def bind_none(
                args: tuple[Any, ...], kwargs: dict[str, Any]
            ) -> tuple[int, dict[str, Any]]:
                return index, {}

            return bind_none
        if len(positional) == 1:  # ``view((2, 3))``, ``unsqueeze(0)``, ``sum(0)``
            ((name, read),) = positional

            def bind_one(
                args: tuple[Any, ...], kwargs: dict[str, Any]
            ) -> tuple[int, dict[str, Any]] | None:
                value = args[0]
                if read is not None:
                    value = read(value)
                    if value is None:  # (no reader returns None for a value it reads)
                        return None
                return index, {name: value}

            return bind_one
        if len(positional) == 2:  # ``transpose(0, 1)``, ``select(0, 1)``, ``sum(0, True)``
            (name0, read0), (name1, read1) = positional

            def bind_two(
                args: tuple[Any, ...], kwargs: dict[str, Any]
            ) -> tuple[int, dict[str, Any]] | None:
                value0, value1 = args
                if read0 is not None:
                    value0 = read0(value0)
                    if value0 is None:
                        return None
                if read1 is not None:
                    value1 = read1(value1)
                    if value1 is None:
                        return None
                return index, {name0: value0, name1: value1}

            return bind_two

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        out = dict(defaults)
        if varargs:
            out[varargs] = args
        else:
            for (name, read), value in zip(positional, args):  # noqa: B905 - as many
                if read is not None:
                    value = read(value)
                    if value is None:
                        return None
                out[name] = value
        for name, value in kwargs.items():
            read = keywords[name]
            if read is not None:
                value = read(value)
                if value is None:
                    return None
            out[name] = value
        return index, out

    return bind


class Parser:
    """The overloads of one function or method, tried in order as torch's parser tries them."""

    def __init__(
        self, name: str, *signatures: str, numbers_as_tensors: bool = False, hidden: bool = False
    ) -> None:
        """``hidden``: torch also has overloads it never prints (deprecated ones), so a lone
        printed signature is still reported as "an invalid combination of arguments"."""
        self.name = name
        self.signatures = [Signature(name, s, numbers_as_tensors) for s in signatures]
        self.single = len(self.signatures) == 1 and not hidden
        self._plans: dict[Any, Plan] = {}
        # torch's ``out=`` (always keyword-only): refused unless the function writes it
        # (``ownership.ops.out_variants.with_out`` turns this off: :func:`torch_binding`)
        self.has_out = any(p.name == "out" for s in self.signatures for p in s.params)

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The index of the first signature that fits and its bound arguments; else torch's error.

        A call whose arguments are plain scalars, dtypes, tensors or int lists of Python ints
        binds the same way whenever their types are the same: that binding is remembered (a
        plan per pattern of types, :func:`_plan`), so the commonest calls (``x.view(2, 3)``,
        ``x.view((2, 3))``, ``g.sum(0)`` in a backward) pay for trying the overloads once.

        An ``out=`` tensor is refused (:func:`refuse_out`) once the arguments bind: the engine
        writes no result into a given tensor, and never ignores one.
        """
        if kwargs:
            if self.has_out and kwargs.get("out") is not None:
                self._parse(args, kwargs)  # torch's argument errors first
                refuse_out(self.name)
            key: Any = (*map(type, args), *((k, type(v)) for k, v in kwargs.items()))
        elif len(args) == 1:  # the commonest calls, positional: their types read without ``map``
            key = type(args[0])  # (one type, no tuple: never equal to any other call's key)
        elif len(args) == 2:
            key = (type(args[0]), type(args[1]))
        else:
            key = (*map(type, args),)
        plan = self._plans.get(key)
        if plan is not None:
            found: tuple[int, dict[str, Any]] | None = plan(args, kwargs)
            if found is not None:
                return found
            return self._parse(args, kwargs)
        index, bound = self._parse(args, kwargs)
        plan = _plan(index, self.signatures[index], args, kwargs)
        if plan is not None:
            self._plans[key] = plan
        return index, bound

    def _parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.single:
            return 0, self.signatures[0].bind(args, kwargs, raising=True)
        for index, sig in enumerate(self.signatures):
            bound = sig.bind(args, kwargs, raising=False)
            if bound is not None:
                return index, bound
        n = len(args) + len(kwargs)
        plausible = [s for s in self.signatures if s.min_args <= n <= s.max_args]
        if len(plausible) == 1:
            plausible[0].bind(args, kwargs, raising=True)
        raise TypeError(invalid_combination(self.name, self.signatures, args, kwargs))


def torch_binding(declaration: Declaration) -> Parser:
    """torch's parser for a declaration of core or the ops: the binder
    :func:`ownership.installation.install` gives :mod:`ownership.core.binder`. ``out=`` is
    refused unless the declaration's function writes it."""
    parser = Parser(
        declaration.name,
        *declaration.texts,
        numbers_as_tensors=declaration.numbers_as_tensors,
        hidden=declaration.hidden,
    )
    parser.has_out = parser.has_out and not declaration.writes_out
    return parser
