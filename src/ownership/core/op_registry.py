"""The registry through which Tensor methods reach the ops: :data:`ops`, filled at its first lookup.

Core may not import :mod:`ownership.ops`: :func:`install` hands it the table, and every op that
computes is wrapped by :func:`quiet` (the views of ``NO_ARITHMETIC`` are not). :data:`OPS` is the
same table by name; :func:`watch` is the one observer point of every op call.

>>> ops.add.__module__
'ownership.ops.arithmetic'
>>> OPS["add"] is ops.add
True
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any, ParamSpec, TypeVar

import numpy as np

from ownership.core.storage import allocation_refused

__all__ = ["OPS", "edges_first", "install", "ops", "quiet", "quiet_op", "unwatch", "watch"]

P = ParamSpec("P")
R = TypeVar("R")


def _switches() -> tuple[Callable[[], Any], Callable[[Any], Any]]:
    """``token = ignore()``, then ``restore(token)``: numpy's floating-point reports off, and back."""
    try:
        from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
            _extobj_contextvar as state,
        )
    except ImportError:
        return functools.partial(np.seterr, all="ignore"), lambda old: np.seterr(**old)
    with np.errstate(all="ignore"):
        ignoring = state.get()
    return functools.partial(state.set, ignoring), state.reset


_IGNORE, _RESTORE = _switches()
_KERNEL_ERRORS = (RuntimeError, IndexError, ValueError, MemoryError)
"""The errors of an op's kernel, raised after torch's autograd kernel collected the edges."""


def edges_first(name: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> None:
    """Collect the inputs' edges of the op ``name`` whose kernel check just failed, as torch's
    autograd kernel did first: a stale view's rebase error replaces the check's."""
    table = _source
    if (
        table is None
        or name in table.NOT_DIFFERENTIATED
        or name in table.NO_AUTOGRAD_KERNEL
        or name.endswith("_")
    ):
        return
    try:
        table.read_histories(args, kwargs or {})
    except RuntimeError as stale:
        raise stale from None


def quiet(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with numpy's reports made torch's: inf and nan are results (no numpy warning), and
    an allocation that fails is torch's allocator error
    (:func:`~ownership.core.storage.allocation_refused`)."""
    return quiet_op(fn, None)


def quiet_op(fn: Callable[P, R], name: str | None) -> Callable[P, R]:
    """:func:`quiet` for the op ``name`` (None: no op), whose edges :func:`edges_first` reads."""
    ignore, restore = _IGNORE, _RESTORE

    @functools.wraps(fn)
    def quieted(*args: P.args, **kwargs: P.kwargs) -> R:
        token = ignore()
        try:
            return fn(*args, **kwargs)
        except _KERNEL_ERRORS as error:
            if name is not None:
                edges_first(name, args, kwargs)
            if isinstance(error, MemoryError):
                raise allocation_refused(error) from None
            raise
        finally:
            restore(token)

    return quieted


_source: ModuleType | None = None  # ownership.ops.table, given by install()
_QUIETED: dict[str, Callable[..., Any]] = {}  # the ops by name, as _set sets them


def install(table: ModuleType) -> None:
    """Take the ops of ``table`` (:mod:`ownership.ops.table`) for :data:`ops`, once."""
    global _source
    _source = table


def _fill() -> None:  # every op of the table into ops, quieted unless in NO_ARITHMETIC
    table = _source
    if table is None:
        raise RuntimeError("no op table yet: ownership.installation.install() has not run")
    for name in table.__all__:
        fn = getattr(table, name)
        _set(name, fn if name in table.NO_ARITHMETIC else quiet_op(fn, name))
    vars(_TABLE).pop("__getattr__", None)


def _set(name: str, fn: Callable[..., Any]) -> None:
    _QUIETED[name] = fn
    setattr(_TABLE, name, fn)


def _missing(name: str) -> Any:  # the op table's ``__getattr__`` until it is filled
    if name.startswith("__") or _QUIETED:  # not an op
        raise AttributeError(f"ownership has no op {name!r}")
    _fill()
    return getattr(_TABLE, name)


def _filled() -> dict[str, Callable[..., Any]]:
    if not _QUIETED:
        _fill()
    return _QUIETED


class _OpsByName(Mapping[str, Callable[..., Any]]):
    """The op table by name, for the ops that call each other (``OPS["where"](...)``)."""

    def __getitem__(self, name: str) -> Callable[..., Any]:
        return _filled()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_filled())

    def __len__(self) -> int:
        return len(_filled())


# a module object: its ``__getattr__`` fills it on the first lookup, then is removed
_TABLE = ModuleType("ownership.core.op_registry.ops", "The op table by attribute.")
vars(_TABLE)["__getattr__"] = _missing
ops: Any = _TABLE
"""The op table by attribute: ``ops.add(self, other)``, typed where taken (``ops: CoreOps[Tensor] =
op_registry.ops`` in core, :class:`ownership.ops.op_table.OpTable` above)."""

OPS: Mapping[str, Callable[..., Any]] = _OpsByName()
"""The same ops by name."""

Observer = Callable[[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]
"""What :func:`watch` calls: ``observer(name, op, args, kwargs)``, which runs the op itself."""

_UNWATCHED: dict[str, Callable[..., Any]] = {}  # while watched: each op as it was


def watch(observer: Observer) -> None:
    """Route every op call (a method's, a ``torch`` function's, an operator's) through
    ``observer`` until :func:`unwatch` (the doctor's watch): the outermost calls only, as torch's
    function mode sees them (it is off while an op runs)."""
    if _UNWATCHED:
        raise RuntimeError("the op table is watched already")
    for name, op in list(_filled().items()):
        _UNWATCHED[name] = op
        _set(name, _watched(observer, name, op))


def unwatch() -> None:
    """Put back every op :func:`watch` routed through its observer."""
    for name, op in _UNWATCHED.items():
        _set(name, op)
    _UNWATCHED.clear()


class _Inside(threading.local):  # per thread, as torch's function-mode stack is
    def __init__(self) -> None:
        self.names: list[str] = []  # the watched op this thread runs, while it runs


_INSIDE = _Inside()


def _watched(observer: Observer, name: str, op: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(op)
    def watched(*args: Any, **kwargs: Any) -> Any:
        inside = _INSIDE.names
        if inside:  # an op called by an op (or by the observer): torch's mode sees neither
            return op(*args, **kwargs)
        inside.append(name)
        try:
            return observer(name, op, args, kwargs)
        finally:
            inside.pop()

    return watched
