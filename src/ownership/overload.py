"""One overload of a torch function, parsed from torch's printed form: its parameters, how it binds
a call's arguments, and the messages torch's parser writes when they do not fit (extra or missing
arguments, a wrong type, an unknown keyword, a bad element of a list).

:class:`ownership.arguments.Parser` tries a function's overloads in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ownership.argument_checks import list_index, python_ints, starts_int_list
from ownership.ops import dtype_arguments
from ownership.ops.argument_values import int64, is_int, is_number, is_tensor
from ownership.ops.tensor_conversion import TensorConversion
from ownership.ops.type_names import tp_name

_NOT_GIVEN = object()

NUMPY_NAMES: dict[str, tuple[str, ...]] = {
    "dim": ("axis",),
    "keepdim": ("keepdims",),
    "input": ("x", "a", "x1"),
    "other": ("x2",),
}
"""The numpy names torch's parser also accepts for a keyword (``numpy_compatibility_arg_names``):
``x.sum(axis=0, keepdims=True)``. A parameter's own name wins; an alias given beside it, or
for a parameter given by position, is an unexpected keyword."""


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
            return is_tensor(obj) or (numbers_as_tensors and is_number(obj))
        if t == "int":
            return is_int(obj)
        if t == "float":
            return is_number(obj) and not isinstance(obj, complex)
        if t == "Number":
            return is_number(obj)
        if t == "bool":  # a Python bool only: torch refuses a numpy bool ("not numpy.bool")
            return isinstance(obj, bool)
        if t == "str":
            return isinstance(obj, str)
        if t == "object":  # torch's ``PyObject*``: anything, read by the function itself
            return True
        if t == "torch.dtype":
            return dtype_arguments.is_argument(obj)
        if t == "tuple of ints":
            if isinstance(obj, tuple | list):
                return not obj or starts_int_list(obj[0])
            return self.size > 0 and is_int(obj)
        if t == "tuple of Tensors":
            return isinstance(obj, tuple | list)
        if t == "torch.device":  # a string, a device, or an index (``to(0)``: an accelerator)
            return isinstance(obj, str) or type(obj).__name__ == "device" or is_int(obj)
        if t == "torch.Generator":
            return obj is None or type(obj).__name__ == "Generator"
        if t == "torch.layout":
            return type(obj).__name__ == "layout"
        if t == "torch.memory_format":
            return type(obj).__name__ == "memory_format"
        raise AssertionError(f"unknown parameter type {t}")


def _parse_param(text: str, kwonly: bool) -> Param:
    default: Any = _NOT_GIVEN
    if " = " in text:
        text, value = text.split(" = ")
        default = {"None": None, "False": False, "True": True}.get(value, value)
        if default is value and not value.isidentifier():  # (``contiguous_format``: its name)
            default = float(value) if "." in value or "e" in value else int(value)
    kind, name = text.rsplit(" ", 1)
    nullable = kind.endswith("?")
    kind = kind.rstrip("?")
    size = 0
    if kind.endswith("]"):
        kind, size_text = kind[:-1].split("[")
        size = int(size_text)
    return Param(kind, name, default, kwonly, size, nullable)


def _scalar(value: Any) -> Any:
    """A number argument as torch's Scalar reads it: a 0-d tensor's Python value."""
    return TensorConversion.item(value) if is_tensor(value) else value  # seen by no observer


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
        self.converters = [self._converter(i, p) for i, p in enumerate(params)]
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
            elif kwargs:
                obj = next(
                    (kwargs[k] for k in (p.name, *NUMPY_NAMES.get(p.name, ())) if k in kwargs),
                    _NOT_GIVEN,
                )
                is_kwd = obj is not _NOT_GIVEN
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
            elif not is_kwd and nargs > self.max_pos_args:  # (a keyword after varargs: its type)
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
        """Convert the chosen signature's arguments (:meth:`_converter`); a bad element of a list
        raises even when another signature might fit (torch has chosen this one by then)."""
        for p, convert in zip(self.params, self.converters, strict=True):
            if convert is not None:
                value = out[p.name]
                if value is not None:
                    out[p.name] = convert(value)
        return out

    def _converter(self, index: int, p: Param) -> Callable[[Any], Any] | None:
        """How the parser reads a value bound to ``p`` (the ``index``-th parameter) other than
        None; None when it takes the value as it is. Chosen once per parameter, used by every
        binding of this signature (:class:`ownership.arguments.Parser`'s remembered ones too)."""
        if p.type == "tuple of ints":
            name = p.name

            def int_list(value: Any) -> tuple[int, ...]:
                if not isinstance(value, tuple | list):  # one int for a list: read as an int
                    return (int64(value),)
                ints = python_ints(value)
                if ints is not None:
                    return ints
                read = []
                for k, item in enumerate(value):
                    try:
                        read.append(list_index(item))
                    except ValueError:
                        raise TypeError(
                            f"{self.name}(): argument '{name}' failed to unpack the object at "
                            f'pos {k + 1} with error "type must be tuple of ints,but got '
                            f'{tp_name(item)}"',
                        ) from None
                return tuple(read)

            return int_list
        if p.type == "tuple of Tensors":

            def tensors(value: Any) -> Any:
                for k, item in enumerate(value):
                    if not is_tensor(item):
                        raise TypeError(
                            f"expected Tensor as element {k} in argument {index}, but got "
                            f"{tp_name(item)}",
                        )
                return value

            return tensors
        if p.type == "int":
            return int64
        if p.type == "torch.dtype":
            return dtype_arguments.from_argument  # ``float``: float64
        if p.type in ("Number", "float"):
            return _scalar
        return None

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
