"""A method of torch's Tensor called on the class without its tensor first (``Tensor.neg()``,
``Tensor.new_zeros(5)``), refused in torch's words: one rule for every method of the engine's
Tensor, made (:func:`ownership.core.surface.install` calls :func:`unbound`) or written by hand
(:func:`of_tensor_base`, or the check of :func:`unbound` first, as the operators').

torch's Tensor has two kinds of methods. Most are C methods of ``torch._C.TensorBase``, which
CPython refuses before torch reads an argument, with its own words (``unbound method
TensorBase.neg() needs an argument``, ``descriptor 'neg' for 'torch._C.TensorBase' objects
doesn't apply to a 'int' object``); the rest torch writes in Python (``torch/_tensor.py``:
``backward``, ``split``, ``__rsub__``...), which Python binds as any function, taking any first
argument as ``self``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NoReturn, ParamSpec, TypeVar, cast

from ownership.core.binder import Binding, Signatures
from ownership.core.surface import UNBOUND
from ownership.core.tensor import Tensor
from ownership.ops.type_names import tp_name

__all__ = [
    "C_NAMES",
    "PYTHON_METHODS",
    "UNBOUND",
    "PythonArguments",
    "of_tensor_base",
    "refusal_of_self",
    "unbound",
    "unbound_slot",
]

P = ParamSpec("P")
R = TypeVar("R")


def refusal_of_self(method_of: Binding | str, args: tuple[Any, ...]) -> str | None:
    """torch's message for its method of arguments ``method_of`` (or of name ``method_of``)
    called on the class with ``args``, which hold no tensor first: CPython's for a C method of
    ``TensorBase`` (a slot's for ``__getitem__`` and ``__setitem__``, under the C method's name
    for the operators torch sets to one, :data:`C_NAMES`), Python's for one torch writes in
    Python (which takes any first argument as ``self``); None when ``args`` start with a tensor.

    >>> import ownership
    >>> ownership.Tensor.stride()
    Traceback (most recent call last):
    TypeError: unbound method TensorBase.stride() needs an argument
    >>> ownership.Tensor.stride([1])
    Traceback (most recent call last):
    TypeError: descriptor 'stride' for 'torch._C.TensorBase' objects doesn't apply to a 'list' object
    >>> ownership.Tensor.__neg__()
    Traceback (most recent call last):
    TypeError: unbound method TensorBase.neg() needs an argument
    >>> ownership.Tensor.__getitem__(1)
    Traceback (most recent call last):
    TypeError: descriptor '__getitem__' requires a 'torch._C.TensorBase' object but received a 'int'
    >>> ownership.Tensor.backward()
    Traceback (most recent call last):
    TypeError: Tensor.backward() missing 1 required positional argument: 'self'
    """
    if isinstance(method_of, PythonArguments):
        if args:
            return None
        qualname = method_of.signature.__qualname__
        return f"{qualname}() missing 1 required positional argument: 'self'"
    if args and isinstance(args[0], Tensor):
        return None
    # a named binding: Signatures, or methods' NoArguments
    name = method_of if isinstance(method_of, str) else cast("Signatures", method_of).name
    name = C_NAMES.get(name, name)
    if name in ("__getitem__", "__setitem__"):
        if not args:
            return f"descriptor '{name}' of 'torch._C.TensorBase' object needs an argument"
        return (
            f"descriptor '{name}' requires a 'torch._C.TensorBase' object but received a "
            f"'{tp_name(args[0])}'"
        )
    if not args:
        return f"unbound method TensorBase.{name}() needs an argument"
    return (
        f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply to a "
        f"'{tp_name(args[0])}' object"
    )


C_NAMES = {"__abs__": "abs", "__neg__": "neg", "__pos__": "positive", "__itruediv__": "__idiv__"}
"""torch's C methods its operators are, where they are named otherwise (``Tensor.__neg__`` is
``TensorBase.neg``)."""


PYTHON_METHODS = {
    **{
        name: f"Tensor.{name}"
        for name in (
            *("__array__", "__array_wrap__", "__contains__", "__iter__", "__len__"),
            *("__floordiv__", "__rfloordiv__", "__rpow__", "__rsub__", "__rdiv__", "__rmod__"),
            *("__rmatmul__", "__rlshift__", "__rrshift__"),
        )
    },
    "__pow__": "TensorBase.pow",
    "__ipow__": "TensorBase.pow_",
    "__rtruediv__": "Tensor.__rdiv__",
}
"""The operators and conversions torch writes in Python (``torch/_tensor.py``), which Python
binds as any function, by torch's qualified name of each (``__pow__`` is ``pow`` wrapped)."""


def unbound(name: str, self: Any) -> NoReturn:
    """Raise torch's TypeError for its C method ``name`` called on the class with ``self`` first,
    which is no tensor (:data:`~ownership.core.surface.UNBOUND`: nothing), in
    :func:`refusal_of_self`'s words: the check of every made method
    (:func:`ownership.core.surface.install`) and of :func:`of_tensor_base`'s."""
    raise TypeError(refusal_of_self(name, () if self is UNBOUND else (self,)))


def unbound_slot(name: str, self: Any, *args: Any) -> NoReturn:
    """Raise torch's TypeError for its slot ``name`` (``__getitem__``, ``__setitem__``) called
    without a tensor first (:func:`unbound`) or without its every argument (``args``, each
    :data:`~ownership.core.surface.UNBOUND` when missing), in the words of CPython's slot
    wrappers: ``x.__getitem__()`` is ``expected 1 argument, got 0``.

    >>> import ownership
    >>> ownership.ones(2).__setitem__(0)
    Traceback (most recent call last):
    TypeError:  expected 2 arguments, got 1
    """
    if not isinstance(self, Tensor):
        unbound(name, self)
    given = sum(arg is not UNBOUND for arg in args)
    if name == "__getitem__":
        raise TypeError(f"expected 1 argument, got {given}")
    raise TypeError(f" expected 2 arguments, got {given}")  # PyArg_UnpackTuple's, unnamed


def of_tensor_base(method: Callable[P, R], name: str | None = None) -> Callable[P, R]:
    """``method``, written by hand for torch's C method ``name`` (``method``'s own name by
    default), refused when called on the class without a tensor first as torch refuses it
    (:func:`unbound`), before any argument is read (``Tensor.transpose_()``,
    ``Tensor.__float__(3)``).

    >>> import ownership
    >>> ownership.Tensor.new_zeros(5)
    Traceback (most recent call last):
    TypeError: descriptor 'new_zeros' for 'torch._C.TensorBase' objects doesn't apply to a 'int' object
    """
    named = name or method.__name__

    @functools.wraps(method)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        if not args or not isinstance(args[0], Tensor):
            unbound(named, args[0] if args else UNBOUND)
        return method(*args, **kwargs)

    return checked


class PythonArguments:
    """The arguments of a method torch writes in Python (``Tensor.backward``), as
    :func:`~ownership.ops.methods.of_table` checks them: Python binds them to ``signature``, a
    function of the method's parameters named as torch's method is, so a call it refuses gets
    Python's message under torch's name."""

    def __init__(self, signature: Callable[..., None], qualname: str) -> None:
        signature.__qualname__ = qualname
        self.signature = signature

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Nothing, or Python's TypeError for arguments the method does not take."""
        self.signature(None, *args, **kwargs)
        return 0, {}
