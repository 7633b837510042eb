"""torch's Python argument parser: each signature as torch prints it, its type rules, its messages.

torch binds the arguments of every Python call into a C++ function through one parser
(``torch/csrc/utils/python_arg_parser.cpp``); when no signature matches, that parser writes the
``TypeError`` a learner sees. :class:`Parser` reproduces it: it is built from the signatures exactly
as torch prints them (``"(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)"``)
and raises torch's messages word for word: ``argument 'dim' (position 1) must be int, not float``,
``takes 1 positional argument but 2 were given``, ``missing 1 required positional arguments``,
``failed to unpack the object at pos 2``, and, when several signatures are plausible, ``received an
invalid combination of arguments - got (...), but expected one of: ...``.

An int list written ``tuple of ints[1]`` also takes one int (torch's ``int[1]``) and one written
``tuple of ints?`` also takes None; neither mark is printed. A signature whose only positional
parameter is an int list takes it as varargs (``view(2, 3)``), as torch's does. The message for
"no overload fits" is :func:`ownership.invalid_arguments.invalid_combination`.

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

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ownership.dtypes import dtype as DType
from ownership.invalid_arguments import invalid_combination, is_torch_tensor, tp_name

__all__ = [
    "Param",
    "Parser",
    "Signature",
    "as_given",
    "as_saved",
    "int64",
    "is_int",
    "is_number",
    "is_torch_tensor",
    "list_index",
    "no_arguments",
    "starts_int_list",
    "tensor_arg",
    "tp_name",
]


_tensor_class: type | None = None
"""The Tensor class, looked up at the first check: ``ownership._tensor`` imports this module."""


def _is_tensor(obj: Any) -> bool:
    global _tensor_class
    if _tensor_class is None:  # once: an import statement per check costs more than the check
        from ownership._tensor import Tensor

        _tensor_class = Tensor
    return isinstance(obj, _tensor_class)


def is_int(obj: Any) -> bool:
    """torch's int check: a Python or numpy integer (not a bool), or a 0-d integer tensor."""
    if isinstance(obj, bool | np.bool_):
        return False
    if isinstance(obj, int | np.integer):
        return True
    return (
        _is_tensor(obj)
        and obj._data.ndim == 0
        and obj._data.dtype.kind in "iu"
        and not obj.requires_grad
    )


def starts_int_list(obj: Any) -> bool:
    """torch's check of the first element of an int list (``is_int_or_symint``): an int, not a
    bool; a one-element tensor of an integer or bool dtype; anything else with ``__index__``.
    Only the first element is checked here; the others are read by :func:`list_index`."""
    if isinstance(obj, bool | np.bool_):
        return False
    if isinstance(obj, int | np.integer):
        return True
    if _is_tensor(obj):
        return obj._data.size == 1 and obj._data.dtype.kind in "iub"
    try:
        operator.index(obj)
    except Exception:  # whatever ``__index__`` raises, torch only asks whether it worked
        return False
    return True


def list_index(obj: Any) -> int:
    """One element of an int list read as torch reads it (``THPUtils_unpackIndex``): its
    ``__index__`` (a bool is 1 or 0); ValueError when it is not one."""
    try:
        return operator.index(obj)
    except Exception:
        raise ValueError(tp_name(obj)) from None


def int64(value: Any) -> int:
    """An int argument read as torch reads it, a C ``long long``: beyond int64, torch's
    ValueError (before the op sees it)."""
    out = int(value)
    if -(2**63) <= out < 2**63:
        return out
    raise ValueError("Overflow when unpacking long long")


def as_saved(value: int) -> int:
    """An int64 argument as a node's ``_saved_<name>`` shows it: read as unsigned 64-bit (torch
    shows ``dim=-1`` as ``2**64 - 1``).

    >>> as_saved(-1) == 2**64 - 1, as_saved(3)
    (True, 3)
    """
    return value & _UINT64


def as_given(saved: int) -> int:
    """The int64 argument a saved int was given as (the inverse of :func:`as_saved`)."""
    return saved - 2**64 if saved > _UINT64 // 2 else saved


_UINT64 = 2**64 - 1


def no_arguments(name: str, args: tuple[Any, ...]) -> None:
    """torch's refusal of positional arguments to a method that takes none (``x.tanh(1)``), as
    a direct call words it."""
    raise TypeError(f"TensorBase.{name}() takes no arguments ({len(args)} given)")


def is_number(obj: Any) -> bool:
    """torch's Number check: a Python or numpy number (bools included), or a 0-d tensor."""
    if isinstance(obj, int | float | complex | np.number | np.bool_):
        return True
    return _is_tensor(obj) and obj._data.ndim == 0 and not obj.requires_grad


def tensor_arg(function: str, value: Any, name: str = "input", position: int = 1) -> None:
    """torch's TypeError when a lone ``Tensor`` argument is something else (``torch.sum([1])``)."""
    if not _is_tensor(value):
        raise TypeError(
            f"{function}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{tp_name(value)}"
        )


_NOT_GIVEN = object()


@dataclass(frozen=True)
class Param:
    """One parameter of a signature: type as torch prints it, name, default, keyword-only."""

    type: str
    name: str
    default: Any = _NOT_GIVEN
    kwonly: bool = False
    size: int = 0  # ``tuple of ints[1]``: one int is taken as a list of one
    nullable: bool = False  # ``tuple of ints?``: None is accepted though there is no default

    @property
    def optional(self) -> bool:
        return self.default is not _NOT_GIVEN

    def check(self, obj: Any, numbers_as_tensors: bool) -> bool:
        """Whether ``obj`` is acceptable for this parameter (torch's ``FunctionParameter::check``)."""
        t = self.type
        if t == "Tensor":  # not a torch tensor: refused as torch refuses a numpy array
            return _is_tensor(obj) or (numbers_as_tensors and is_number(obj))
        if t == "int":
            return is_int(obj)
        if t == "float":
            return is_number(obj) and not isinstance(obj, complex)
        if t == "Number":
            return is_number(obj)
        if t == "bool":
            return isinstance(obj, bool | np.bool_)
        if t == "str":
            return isinstance(obj, str)
        if t == "torch.dtype":
            return isinstance(obj, DType)
        if t == "tuple of ints":
            if isinstance(obj, tuple | list):
                return not obj or starts_int_list(obj[0])
            return self.size > 0 and is_int(obj)
        if t == "tuple of Tensors":
            return isinstance(obj, tuple | list)
        if t == "torch.device":
            return isinstance(obj, str) or type(obj).__name__ == "device"
        if t == "torch.Generator":
            return obj is None or type(obj).__name__ == "Generator"
        if t == "torch.layout":
            return type(obj).__name__ == "layout"
        raise AssertionError(f"unknown parameter type {t}")


def _parse_param(text: str, kwonly: bool) -> Param:
    default: Any = _NOT_GIVEN
    if " = " in text:
        text, value = text.split(" = ")
        default = {"None": None, "False": False, "True": True}.get(value, value)
        if default is value:
            default = float(value) if "." in value or "e" in value else int(value)
    kind, name = text.rsplit(" ", 1)
    nullable = kind.endswith("?")
    kind = kind.rstrip("?")
    size = 0
    if kind.endswith("]"):
        kind, size_text = kind[:-1].split("[")
        size = int(size_text)
    return Param(kind, name, default, kwonly, size, nullable)


def _shown(part: str) -> tuple[str, str]:
    """(type, name) as torch's formatter reads one printed argument: split at the last space,
    so ``bool keepdim = False`` reads as type ``bool keepdim =`` named ``False`` (never matching)."""
    if " " not in part:
        return part, part
    kind, name = part.rsplit(" ", 1)
    return kind, name


class Signature:
    """One overload, parsed from torch's printed form ``(Tensor other, *, Number alpha = 1)``."""

    def __init__(self, name: str, text: str, numbers_as_tensors: bool = False) -> None:
        self.name = name
        self.printed = text.replace("[1]", "").replace("?", "")
        self.numbers_as_tensors = numbers_as_tensors
        params: list[Param] = []
        kwonly = False
        for part in (p for p in text[1:-1].split(", ") if p):
            if part == "*":
                kwonly = True
                continue
            params.append(_parse_param(part, kwonly))
        self.params = params
        self.min_args = sum(not p.optional for p in params)
        self.max_args = len(params)
        self.max_pos_args = sum(not p.kwonly for p in params)
        self.varargs = self.max_pos_args == 1 and params[0].type == "tuple of ints"
        # torch's error formatter re-reads the printed text, where ``*`` (and the empty list of
        # ``()``) count as arguments too: these (type, name) pairs are what it compares with
        self.shown = [_shown(part) for part in self.printed[1:-1].split(", ")]

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any], raising: bool) -> Any:
        """The bound arguments by name, or None when they do not fit (torch's message if raising)."""
        nargs, left = len(args), len(kwargs)
        if nargs > self.max_pos_args and not self.varargs:
            return self._fail(raising, self._extra_args(nargs))
        out: dict[str, Any] = {}
        pos = 0
        for i, p in enumerate(self.params):
            is_kwd = False
            obj: Any = _NOT_GIVEN
            if pos < nargs:
                if p.kwonly:
                    return self._fail(raising, self._extra_args(nargs))
                obj = args[pos]
            elif p.name in kwargs:
                obj, is_kwd = kwargs[p.name], True
            if obj is _NOT_GIVEN or (obj is None and (p.default is None or p.nullable)):
                if not p.optional and obj is _NOT_GIVEN:
                    return self._fail(raising, self._missing(i))
                out[p.name] = None if obj is None else p.default
            elif p.check(obj, self.numbers_as_tensors):
                out[p.name] = obj
            elif pos == 0 and not is_kwd and self.varargs and is_int(args[0]):
                out[p.name] = args
                pos = nargs
                continue
            elif nargs > self.max_pos_args:
                return self._fail(raising, self._extra_args(nargs))
            else:
                return self._fail(raising, self._wrong_type(p, obj, pos, is_kwd))
            if is_kwd:
                left -= 1
            elif obj is not _NOT_GIVEN:
                pos += 1
        if pos < nargs:  # a list given whole, then more: ``view((4, 6), 1)``
            return self._fail(raising, self._extra_args(nargs))
        if left:
            return self._fail(raising, self._extra_kwargs(kwargs, pos))
        return self._unpack(out)

    def _unpack(self, out: dict[str, Any]) -> dict[str, Any]:
        """Convert the chosen signature's arguments (a 0-d tensor given for a number: its value); a bad element of a list raises even when
        another signature might fit (torch has chosen this one by then)."""
        for i, p in enumerate(self.params):
            value = out[p.name]
            if p.type == "tuple of ints" and value is not None:
                if not isinstance(value, tuple | list):  # one int for a list: read as an int
                    out[p.name] = (int64(value),)
                    continue
                ints = []
                for k, item in enumerate(value):
                    try:
                        ints.append(list_index(item))
                    except ValueError:
                        raise TypeError(
                            f"{self.name}(): argument '{p.name}' failed to unpack the object at "
                            f'pos {k + 1} with error "type must be tuple of ints,but got '
                            f'{tp_name(item)}"',
                        ) from None
                out[p.name] = tuple(ints)
            elif p.type == "tuple of Tensors" and value is not None:
                for k, item in enumerate(value):
                    if not _is_tensor(item):
                        raise TypeError(
                            f"expected Tensor as element {k} in argument {i}, but got "
                            f"{tp_name(item)}",
                        )
            elif p.type == "int" and value is not None:
                out[p.name] = int64(value)
            elif p.type in ("Number", "float") and _is_tensor(value):
                out[p.name] = value.item()  # torch's Scalar of a 0-d tensor: its Python value
        return out

    @staticmethod
    def _fail(raising: bool, message: str) -> None:
        if raising:
            raise TypeError(message)
        return None

    def _extra_args(self, nargs: int) -> str:
        if self.min_args != self.max_pos_args:
            return (
                f"{self.name}() takes from {self.min_args} to {self.max_pos_args} positional "
                f"arguments but {nargs} were given"
            )
        n = self.max_pos_args
        return (
            f"{self.name}() takes {n} positional argument{'' if n == 1 else 's'} but {nargs} "
            f"{'was' if nargs == 1 else 'were'} given"
        )

    def _missing(self, index: int) -> str:
        names = [f'"{p.name}"' for p in self.params[index:] if not p.optional]
        # torch's own wording: "arguments" when exactly one is missing
        return (
            f"{self.name}() missing {len(names)} required positional argument"
            f"{'s' if len(names) == 1 else ''}: {', '.join(names)}"
        )

    def _wrong_type(self, p: Param, obj: Any, pos: int, is_kwd: bool) -> str:
        if is_kwd:
            return f"{self.name}(): argument '{p.name}' must be {p.type}, not {tp_name(obj)}"
        where = f"{self.name}(): argument '{p.name}' (position {pos + 1}) must be {p.type}"
        if p.type == "tuple of ints" and isinstance(obj, tuple | list):
            return f"{where}, but found element of type {tp_name(obj[0])} at pos 0"
        return f"{where}, not {tp_name(obj)}"

    def _extra_kwargs(self, kwargs: dict[str, Any], pos: int) -> str:
        names = [p.name for p in self.params]
        for key in kwargs:
            if key not in names:
                return f"{self.name}() got an unexpected keyword argument '{key}'"
            if names.index(key) < pos:
                return f"{self.name}() got multiple values for argument '{key}'"
        return "invalid keyword arguments"


_PLAIN = (int, float, bool, type(None), DType)


def _plain(arg: Any, param: Param) -> bool:
    """Whether binding ``arg`` to ``param`` depends on its type alone (not on its value)."""
    if param.type == "Tensor":
        return isinstance(arg, _PLAIN) or _is_tensor(arg)
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

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The index of the first signature that fits and its bound arguments; else torch's error.

        A call whose arguments are plain scalars, dtypes or tensors binds the same way whenever
        their types are the same: that binding is remembered (a plan per pattern of types), so
        the engine's own calls (``g.sum(0)`` in a backward) pay for the parser once.
        """
        if kwargs:
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
            _plain(v, params[k]) for k, v in kwargs.items()
        ):
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
