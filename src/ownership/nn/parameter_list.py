"""ParameterList and ParameterDict: parameters kept in a list or a dict, *registered*.

Each element is stored as an attribute named ``'0'``, ``'1'``, ... (list) or by its key (dict),
so a :class:`~ownership.nn.Parameter` element is a registered parameter of the container. A plain
tensor put in is first wrapped in a ``Parameter`` (aliasing its storage); other objects are kept
as plain attributes, as in torch.

>>> import ownership
>>> params = ParameterList([ownership.zeros(2), ownership.nn.Parameter(ownership.ones(3))])
>>> [(name, tuple(p.shape)) for name, p in params.named_parameters()]
[('0', (2,)), ('1', (3,))]
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, KeysView
from collections.abc import Iterable as IterableABC
from typing import Any, Self

from ownership.core.tensor import Tensor
from ownership.nn.container import abs_index
from ownership.nn.module import Module
from ownership.nn.module_list import pairs_of
from ownership.nn.parameter import Parameter
from ownership.nn.typename import typename

__all__ = ["ParameterDict", "ParameterList"]


def _as_parameter(value: Any) -> Any:
    """A plain tensor becomes a Parameter over the same storage; anything else is kept."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(key: Any, value: Any, dtype_text: str) -> str:
    if isinstance(value, Tensor):
        size = "x".join(str(n) for n in value.size())
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{dtype_text} of size {size}]"
    return f"  ({key}): Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of parameters (any object may be kept; tensors become Parameters)."""

    _size: int

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            out = type(self)()
            for i in range(*index.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(abs_index(index, len(self))))

    def __setitem__(self, index: int, param: Any) -> None:
        setattr(self, str(abs_index(index, len(self))), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> Self:
        return self.extend(parameters)

    def append(self, value: Any) -> Self:
        """Add ``value`` at the end (a tensor as a Parameter); returns the list."""
        index = len(self)
        self._size += 1
        self[index] = value
        return self

    def extend(self, values: Iterable[Any]) -> Self:
        """Append every value of an iterable (not a tensor), in order."""
        if not isinstance(values, IterableABC) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_describe(k, p, repr(getattr(p, "dtype", ""))) for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters by string key, in insertion order (tensors become Parameters)."""

    _keys: dict[str, None]

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, self._attr(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same objects under the same keys."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, after setting it to ``default`` if it was absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry."""
        for k in self._keys.copy():
            del self[k]

    def pop(self, key: str) -> Any:
        """Remove entry ``key`` and return its value."""
        v = self[key]
        del self[key]
        return v

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last inserted ``(key, value)``."""
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]`` if present, else ``default``."""
        return self[key] if key in self else default  # noqa: SIM401 - torch's lookup

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with every key set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> KeysView[str]:
        """The keys, in order."""
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(key, value)`` pairs, in order."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """The values, in order."""
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Set each pair of a mapping (a plain dict's in sorted key order, as torch does)."""
        for key, value in pairs_of("ParameterDict", parameters, ParameterDict, sort_plain=True):
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(_describe(k, p, typename(p)) for k, p in self.items())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: ParameterDict) -> Self:
        self.update(other)
        return self
