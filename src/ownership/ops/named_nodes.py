"""The node the user sees: torch's class per node kind (``MulBackward0``), serving ``_saved_<name>``.

torch gives every node kind its own class (``type(y.grad_fn).__name__ == "MulBackward0"``) with a
property per saved value. The engine records every op's node as a plain
:class:`~ownership.core.autograd.node.OpNode`, whose attribute reads CPython specializes (see
:mod:`ownership.core.autograd.node`); :func:`shown` turns a node into what torch shows the first
time it reaches the user (``tensor.grad_fn``, ``node.next_functions``): the same object, its class
switched to one named after the node, which serves ``_saved_<name>`` (each saved tensor
version-checked at its read, core's rule: :meth:`ownership.core.autograd.saved.SavedTensor.unpack`).
It fills core's seam ``ownership.core.autograd.node.shown``, by
:func:`ownership.installation.install` (parity). A view's ``AsStridedBackward0``, a node class of
its own, shows its saved values as :class:`AsStridedSaved` does.

>>> import ownership
>>> x = ownership.tensor([1.0, 2.0], requires_grad=True)
>>> y = x * 3.0
>>> type(y.grad_fn).__name__, y.grad_fn._saved_other
('MulBackward0', tensor(3., dtype=torch.float64))
>>> y.grad_fn.foo
Traceback (most recent call last):
AttributeError: 'MulBackward0' object has no attribute 'foo'
"""

from __future__ import annotations

import threading
from typing import Any

from ownership.core.autograd.node import Node, OpNode
from ownership.core.autograd.saved import FREED_MESSAGE

__all__ = ["AsStridedSaved", "NamedNode", "named_class", "shown"]


class NamedNode(OpNode):
    """An :class:`~ownership.core.autograd.node.OpNode` as the user sees it: the base of the
    class :func:`shown` gives a node, one per node name, which serves torch's ``_saved_<name>``
    properties from the node's saved values (the hook that the engine's own class goes
    without)."""

    __slots__ = ()

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_saved_"):
            key = attr[7:]
            saved = object.__getattribute__(self, "_saved")
            if saved is not None and key in saved:
                return saved[key].unpack(self)
            if key in object.__getattribute__(self, "_ctx"):
                return self._ctx[key]
            freed = object.__getattribute__(self, "_freed_keys")
            if saved is None and freed is not None and key in freed:
                raise RuntimeError(FREED_MESSAGE)
        raise AttributeError(f"'{self._name}' object has no attribute '{attr}'")

    def __dir__(self) -> list[str]:
        """The node's public names and torch's ``_saved_<name>`` of each saved value."""
        names = set(super().__dir__())
        names.update("_saved_" + k for k in self._ctx)
        names.update("_saved_" + k for k in self._saved or self._freed_keys or ())
        return sorted(names)


_NAMED: dict[str, type[NamedNode]] = {}
_NAMED_LOCK = threading.Lock()


def named_class(name: str) -> type[NamedNode]:
    """The class of the nodes named ``name`` as torch shows them: named like torch's (the last
    part of ``torch::autograd::CopySlices``), ``builtins`` its module as torch's; one per name."""
    cls = _NAMED.get(name)
    if cls is None:
        with _NAMED_LOCK:
            cls = _NAMED.get(name)
            if cls is None:
                short = name.rsplit("::", 1)[-1]
                namespace = {"__slots__": (), "__module__": "builtins", "__qualname__": short}
                cls = _NAMED[name] = type(short, (NamedNode,), namespace)
    return cls


def shown(node: Any) -> Any:
    """``node`` as torch shows it (see the module's docstring): an
    :class:`~ownership.core.autograd.node.OpNode` gets the class of its name
    (:func:`named_class`) the first time it is shown, any other node or None is returned as it
    is. The node stays the same object; the engine runs it as before."""
    if type(node) is OpNode:
        node.__class__ = named_class(node._name)
    return node


class AsStridedSaved:
    """What a view's ``AsStridedBackward0``
    (:class:`ownership.core.autograd.view_history.AsStridedBackward0`, a node class of its own)
    shows as torch's saved values: the view's geometry as torch's
    ``as_strided`` call saved it, numbers never freed; set on that class by
    ``ownership.installation.install()``."""

    @property
    def _saved_size(self: Any) -> tuple[int, ...]:
        """torch's saved ``size`` of the ``as_strided`` call: the view's shape."""
        return tuple(self.view_geom[0])

    @property
    def _saved_stride(self: Any) -> tuple[int, ...]:
        """torch's saved ``stride``: the view's strides, in elements."""
        return tuple(self.view_geom[1])

    @property
    def _saved_storage_offset(self: Any) -> int:
        """torch's saved ``storage_offset``: the view's offset into the storage, in elements."""
        return int(self.view_geom[2])

    def __dir__(self: Any) -> list[str]:
        """The node's public names and the ``_saved_<name>`` torch shows for it."""
        names = Node.__dir__(self)
        return sorted({*names, "_saved_size", "_saved_storage_offset", "_saved_stride"})
