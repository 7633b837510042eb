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
a number, a tensor), ``ownership.core.argument_values``; of an int list's elements,
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

from collections.abc import Callable, Sequence
from typing import Any

from ownership.core.argument_values import int64, is_tensor
from ownership.core.binder import Signatures as Declaration
from ownership.core.dtypes import dtype as DType
from ownership.invalid_arguments import invalid_combination
from ownership.ops.out_variants import refuse_out
from ownership.overload import Param, Signature

__all__ = ["Parser", "torch_binding"]

_PLAIN = (int, float, bool, type(None), DType)


def _plain(arg: Any, param: Param) -> bool:
    """Whether binding ``arg`` to ``param`` depends on its type alone (not on its value)."""
    if param.type == "Tensor":
        return isinstance(arg, _PLAIN) or is_tensor(arg)
    return type(arg) in _PLAIN


def _identity(value: Any) -> Any:
    return value


def _one_int(value: Any) -> tuple[int]:
    return (int64(value),)


_CONVERTERS: dict[str, Callable[[Any], Any]] = {"int": int64, "tuple of ints": _one_int}


def _plan(
    index: int,
    sig: Signature,
    types: Sequence[type],
    bound: dict[str, Any],
    given: dict[str, Any],
) -> Any:
    """How to bind positional arguments of one pattern of types again without the parser.

    The plan keeps only the defaults of the parameters this pattern leaves out, never a value
    the call gave (a tensor kept here would outlive its last reference). Each argument's
    conversion (``int``, a one-int tuple, none) is chosen once, from its parameter's type and
    the argument's type (``None`` stays ``None``), as :meth:`Signature._unpack` converts."""
    nargs = len(types)
    varargs = sig.varargs and nargs > 1
    kinds = {p.name: p.type for p in sig.params}
    names = [p.name for p in sig.params[:nargs]]
    taken = {sig.params[0].name} if varargs else set(names)
    named = set(given)
    # every key in the parser's order; the call's own values are re-bound on each use
    defaults = {k: None if k in taken or k in named else v for k, v in bound.items()}

    def converter(kind: str, value_type: type) -> Callable[[Any], Any]:
        return _identity if value_type is type(None) else _CONVERTERS.get(kind, _identity)

    positional = [(name, converter(kinds[name], t)) for name, t in zip(names, types, strict=False)]
    keywords = {name: converter(kinds[name], type(value)) for name, value in given.items()}
    first = sig.params[0].name if varargs else ""

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        out = dict(defaults)
        if varargs:
            out[first] = tuple(map(int, args))
        else:
            for (name, convert), value in zip(positional, args, strict=True):
                out[name] = convert(value)
        for name, value in kwargs.items():
            out[name] = keywords[name](value)
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
        self._plans: dict[Any, Any] = {}
        # torch's ``out=`` (always keyword-only): refused unless the function writes it
        # (``ownership.ops.out_variants.with_out`` turns this off: :func:`torch_binding`)
        self.has_out = any(p.name == "out" for s in self.signatures for p in s.params)

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The index of the first signature that fits and its bound arguments; else torch's error.

        A call whose arguments are plain scalars, dtypes or tensors binds the same way whenever
        their types are the same: that binding is remembered (a plan per pattern of types), so
        the engine's own calls (``g.sum(0)`` in a backward) pay for the parser once.

        An ``out=`` tensor is refused (:func:`refuse_out`) once the arguments bind: the engine
        writes no result into a given tensor, and never ignores one.
        """
        if kwargs:
            if self.has_out and kwargs.get("out") is not None:
                self._parse(args, kwargs)  # torch's argument errors first
                refuse_out(self.name)
            key: tuple[Any, ...] = (*map(type, args), *((k, type(v)) for k, v in kwargs.items()))
        else:  # the common call: positional arguments only
            key = tuple(map(type, args))
        plan = self._plans.get(key)
        if plan is not None:
            found: tuple[int, dict[str, Any]] = plan(args, kwargs)
            return found
        index, bound = self._parse(args, kwargs)
        sig = self.signatures[index]
        params = {p.name: p for p in sig.params}
        if all(_plain(a, p) for a, p in zip(args, sig.params, strict=False)) and all(
            k in params and _plain(v, params[k]) for k, v in kwargs.items()
        ):  # a numpy name (``axis=``) is bound by the parser each time
            self._plans[key] = _plan(index, sig, key[: len(args)], bound, kwargs)
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
