"""Sequential: children called in order, each one's output the next one's input.

Children are registered under the names ``'0'``, ``'1'``, ... (or the keys of an
``OrderedDict``), so their parameters are collected as ``'0.weight'``, ``'2.bias'``...

>>> import ownership
>>> seq = Sequential(ownership.nn.Linear(2, 3), ownership.nn.ReLU(), ownership.nn.Linear(3, 1))
>>> len(seq), [name for name, _ in seq.named_parameters()]
(3, ['0.weight', '0.bias', '2.weight', '2.bias'])
>>> seq[1:]
Sequential(
  (1): ReLU()
  (2): Linear(in_features=3, out_features=1, bias=True)
)
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterator
from itertools import islice
from typing import Any, Self, cast, overload

from ownership.nn.module import Module
from ownership.nn.typename import class_str

__all__ = ["IndexedModules", "Sequential", "abs_index"]


def abs_index(index: Any, size: int) -> int:
    """``index`` (an int, negative from the end) as a position in ``range(size)``, or torch's
    ``IndexError``: the one indexing rule of the list-like containers."""
    position: int = operator.index(index)
    if not -size <= position < size:
        raise IndexError(f"index {position} is out of range")
    return position % size


class IndexedModules(Module):
    """Children named by position, as in a list: what Sequential and ModuleList share.

    ``len``; ``obj[i] = m`` and ``del obj[i]`` (an int counts from the end, or a slice), after
    which the names are renumbered ``0, 1, ...`` as torch does; ``append`` and ``pop``.
    """

    def _key_at(self, index: Any) -> str:
        """The name of the child at ``index``: its position's (``Sequential``'s rule)."""
        return next(islice(iter(self._modules), abs_index(index, len(self)), None))

    def _keys_in(self, index: slice) -> list[str]:
        """The names of the children a slice selects, by position."""
        return list(self._modules)[index]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, self._key_at(index), module)

    def __delitem__(self, index: int | slice) -> None:
        if isinstance(index, slice):
            for key in self._keys_in(index):
                delattr(self, key)
        else:
            delattr(self, self._key_at(index))
        # keep the names 0, 1, ... contiguous, as torch does
        renumbered = {str(i): m for i, m in enumerate(self._modules.values())}
        self._modules.clear()
        self._modules.update(renumbered)

    def __len__(self) -> int:
        return len(self._modules)

    def _shift_in(self, index: int, module: Module) -> None:
        """Put ``module`` at position ``index``, moving the later children one name up."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> Self:
        """Register ``module`` at the end (named ``str(len(self))``); returns the container."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: int | slice) -> Any:
        """Remove the child at ``key`` and return it (the names stay ``0, 1, ...``)."""
        v = self[key]  # type: ignore[index]
        del self[key]
        return v


def _check_sequential(other: Any) -> None:
    """torch's refusal of ``seq + other`` (and ``+=``) when ``other`` is no Sequential."""
    if not isinstance(other, Sequential):
        raise ValueError(
            "add operator supports only objects of Sequential class, but "
            f"{class_str(type(other))} is given."
        )


class Sequential(IndexedModules):
    """A chain of modules: ``Sequential(a, b, c)(x)`` is ``c(b(a(x)))``.

    Indexing by an int (negative counts from the end) gives a child; by a slice, a new
    Sequential holding the same child objects under their *original* names. ``len`` and
    iteration cover the children in order.
    """

    @overload
    def __init__(self, *args: Module) -> None: ...

    @overload
    def __init__(self, arg: OrderedDict[str, Module], /) -> None: ...

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    @overload
    def __getitem__(self, index: int) -> Module: ...

    @overload
    def __getitem__(self, index: slice) -> Sequential: ...

    def __getitem__(self, index: int | slice) -> Module | Sequential:
        if isinstance(index, slice):
            chosen = cast(list[tuple[str, Module]], list(self._modules.items())[index])
            return type(self)(OrderedDict(chosen))
        module = self._modules[self._key_at(index)]
        return module  # type: ignore[return-value]  # None when a None was registered, as torch

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())  # type: ignore[arg-type]  # a None included, as torch

    def insert(self, index: int, module: Module) -> Self:
        """Put ``module`` before position ``index`` (torch's bounds: ``-len <= index <= len``)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        self._shift_in(index, module)
        return self

    def extend(self, sequential: Any) -> Self:
        """Append every module of an iterable, in order."""
        for layer in sequential:
            self.append(layer)
        return self

    # -- ``+`` and ``*``: new chains of the same child objects (torch's semantics and errors) --

    def __add__(self, other: Any) -> Sequential:
        """A new Sequential: this one's children, then ``other``'s, named ``0, 1, ...``."""
        _check_sequential(other)
        combined = Sequential()
        for layer in [*self, *other]:
            combined.append(layer)
        return combined

    def __iadd__(self, other: Any) -> Self:
        """Append ``other``'s children, named on from ``len(self)``."""
        _check_sequential(other)
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other: Any) -> Sequential:
        """A new Sequential: the children ``other`` times over (the same objects, repeated)."""
        self._check_factor(other)
        combined = Sequential()
        for offset, module in enumerate([*self] * other):
            combined.add_module(str(offset), module)
        return combined

    def __rmul__(self, other: Any) -> Sequential:
        return self.__mul__(other)

    def __imul__(self, other: Any) -> Self:
        """Repeat the children ``other`` times in place (children named ``'0'``... as torch
        reads them back: a Sequential built from an OrderedDict gets torch's KeyError)."""
        self._check_factor(other)
        n = len(self)
        for offset in range(n, n * other, n):
            for i in range(n):
                self.add_module(str(i + offset), self._modules[str(i)])
        return self

    def _check_factor(self, other: Any) -> None:
        """torch's refusal of a multiplier that is not a positive int."""
        if not isinstance(other, int):
            raise TypeError(
                f"unsupported operand type(s) for *: {class_str(type(self))} and "
                f"{class_str(type(other))}"
            )
        if other <= 0:
            raise ValueError(
                f"Non-positive multiplication factor {other} for {class_str(type(self))}"
            )

    def forward(self, input: Any) -> Any:
        """Call each child on the previous child's output."""
        for module in self._modules.values():  # what ``iter(self)`` walks, a None included,
            input = module(input)  # type: ignore[misc]  # which torch calls too (a TypeError)
        return input
