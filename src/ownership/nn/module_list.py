"""ModuleList and ModuleDict: children kept in a list or a dict, *registered*.

A plain Python ``list`` or ``dict`` of modules assigned to a module attribute is just an
attribute: ``Module.__setattr__`` registers only a Module, a Parameter or a buffer, so the
layers inside are invisible to ``parameters()``, ``state_dict()``, ``to()`` and the optimizer.
These containers are Modules whose children are the layers, named ``'0'``, ``'1'``, ... (list)
or by key (dict), so ``'layers.1.weight'`` appears in ``named_parameters()``.

>>> import ownership
>>> layers = ModuleList([ownership.nn.Linear(2, 2), ownership.nn.ReLU()])
>>> layers.append(ownership.nn.Linear(2, 1))[2]
Linear(in_features=2, out_features=1, bias=True)
>>> [name for name, _ in layers.named_parameters()]
['0.weight', '0.bias', '2.weight', '2.bias']
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from collections.abc import Iterable as IterableABC
from itertools import chain
from typing import Any, Self, overload

from ownership.nn.container import IndexedModules, abs_index
from ownership.nn.module import Module, _addindent

__all__ = ["ModuleDict", "ModuleList", "pairs_of"]


def pairs_of(kind: str, values: Any, ordered: type, sort_plain: bool) -> Iterator[tuple[Any, Any]]:
    """The ``(key, value)`` pairs of ``update``'s argument, with torch's errors.

    An ``OrderedDict`` or an ``ordered`` container gives its items in order, another mapping
    its items (sorted by key when ``sort_plain``, as ``ParameterDict`` does); any other
    iterable must yield pairs.
    """
    if not isinstance(values, IterableABC):
        raise TypeError(
            f"{'ParametersDict' if kind == 'ParameterDict' else kind}.update should be called "
            f"with an iterable of key/value pairs, but got {type(values).__name__}"
        )
    if isinstance(values, OrderedDict | ordered):
        yield from values.items()  # type: ignore[attr-defined]
        return
    if isinstance(values, Mapping):
        yield from sorted(values.items()) if sort_plain else values.items()
        return
    for j, pair in enumerate(values):
        if not _iterable(pair):
            raise TypeError(
                f"{kind} update sequence element #{j} should be Iterable; is{type(pair).__name__}"
            )
        if len(pair) != 2:
            raise ValueError(
                f"{kind} update sequence element #{j} has length {len(pair)}; 2 is required"
            )
        yield pair[0], pair[1]


def _iterable(obj: Any) -> bool:
    return isinstance(obj, IterableABC)


class ModuleList(IndexedModules):
    """A list of registered child modules (names ``'0'``, ``'1'``, ...).

    Indexes like a list (a slice is a new ModuleList of the same modules); ``append``,
    ``extend``, ``insert``, ``pop``, ``del``, ``+`` and ``+=`` keep the names contiguous.
    It has no ``forward``: iterate over it in the owner's forward.
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key_at(self, index: Any) -> str:
        """The name ``str(i)`` of index ``i`` (torch's ``_get_abs_string_index``): a child
        registered under another name (``add_module``) is not counted as at a position."""
        return str(abs_index(index, len(self)))

    def _keys_in(self, index: slice) -> list[str]:
        return [str(k) for k in range(len(self))[index]]

    @overload
    def __getitem__(self, index: int) -> Module: ...

    @overload
    def __getitem__(self, index: slice) -> ModuleList: ...

    def __getitem__(self, index: int | slice) -> Module | ModuleList:
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])  # type: ignore[arg-type]
        module = self._modules[self._key_at(index)]
        return module  # type: ignore[return-value]  # None when a None was registered, as torch

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())  # type: ignore[arg-type]

    def __iadd__(self, modules: Iterable[Module]) -> Self:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index`` (no bounds check, as in torch)."""
        self._shift_in(index, module)

    def extend(self, modules: Iterable[Module]) -> Self:
        """Register every module of an iterable at the end, in order."""
        if not isinstance(modules, IterableABC):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __repr__(self) -> str:
        """torch's repr: runs of equal children are printed once, as ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list[Any]] = []
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for start, end, text in runs:
            line = f"({start}): {text}"
            if start != end:
                line = f"({start}-{end}): {end - start + 1} x {text}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of registered child modules, in insertion order (the keys are the names)."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        module = self._modules[key]
        return module  # type: ignore[return-value]  # None when a None was registered, as torch

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every child."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove the child ``key`` and return it."""
        v = self[key]
        del self[key]
        return v

    def keys(self) -> KeysView[str]:
        """The names, in order."""
        return self._modules.keys()

    def items(self) -> ItemsView[str, Module | None]:
        """``(name, module)`` pairs, in order."""
        return self._modules.items()

    def values(self) -> ValuesView[Module | None]:
        """The modules, in order."""
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Register each ``(name, module)`` of a mapping or of an iterable of pairs."""
        for key, module in pairs_of("ModuleDict", modules, ModuleDict, sort_plain=False):
            self[key] = module
