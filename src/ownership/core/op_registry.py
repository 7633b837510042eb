"""The registry through which Tensor methods reach the ops: :data:`ops`, filled at its first lookup.

The tensor layer sits below :mod:`ownership.ops`, so it may not import it when it loads; its
methods call ``ops.add(self, other)``, typed where they take it: by
:class:`~ownership.core.op_table.CoreOps` in core, by :class:`ownership.ops.op_table.OpTable` above
(one signature per op, which mypy also holds the implementations to), so a method that drifts
from its op is a type error. At run time :data:`ops` is filled from :mod:`ownership.ops.table`, which
``import ownership`` hands over (:func:`install`), the first time any op is looked up. Every op that computes is wrapped
by :func:`quiet` (numpy's floating-point warnings silenced), so every method call passes through
that one rule; the views and reshapes of :data:`ownership.ops.table.NO_ARITHMETIC` compute no
element, so they have nothing to silence and are installed as they are. :data:`OPS` is the same table by name, for the ops that call each other.

>>> ops.add.__module__
'ownership.ops.arithmetic'
>>> OPS["add"] is ops.add
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any, ParamSpec, TypeVar

import numpy as np

from ownership.core.storage import allocation_refused

__all__ = [
    "OPS",
    "edges_first",
    "install",
    "ops",
    "quiet",
    "quiet_op",
    "unwatch",
    "watch",
]

P = ParamSpec("P")
R = TypeVar("R")


def _switches() -> tuple[Callable[[], Any], Callable[[Any], Any]]:
    """How an op turns numpy's floating-point reports off, and back: ``token = ignore()``, then
    ``restore(token)``.

    numpy 2 keeps its error state in a context variable: the value that ignores everything is
    built once, and an op only sets the variable and resets it (``np.errstate`` builds the state
    anew on each entry: about 2 us, as much as a small op). numpy 1.x: ``np.seterr``, which
    returns the settings it replaced.
    """
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
"""The errors of an op's kernel (its checks of shapes, dims and values; an allocation that
fails), which torch's kernel raises after its autograd kernel collected the inputs' edges; a
``TypeError`` is its argument parser's, before."""


def edges_first(name: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> None:
    """What torch's autograd kernel of the op ``name`` did before the kernel's check that just
    failed: collect its inputs' edges, where a stale view raises its rebase error (which then
    replaces the check's). The table says which ops torch differentiates
    (``NOT_DIFFERENTIATED``: no edges collected) and how an input's edge is read
    (``read_histories``); it is called only when an op raised one of :data:`_KERNEL_ERRORS`.
    An in-place op (``add_``) is left to itself: it checks the tensor it writes first
    (``check_inplace``: a leaf's view, a stale multi-output view), then reads its inputs' edges
    before its kernel, as torch (:func:`ownership.core.inplace_rules.run_inplace`)."""
    table = _source
    if table is None or name in table.NOT_DIFFERENTIATED or name.endswith("_"):
        return
    try:
        table.read_histories(args, kwargs or {})
    except RuntimeError as stale:
        raise stale from None


def quiet(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with numpy's reports made torch's: inf and nan are results, and an allocation that
    fails is torch's allocator error.

    ``inf * 0``, an overflow, the mean of an empty tensor: torch computes them silently, so no
    numpy ``RuntimeWarning`` (or ``FloatingPointError`` under ``np.seterr(all="raise")``) may
    reach the user; the caller's numpy error state is restored on return. An array numpy cannot
    allocate (its ``MemoryError`` names the array) is the storage torch's allocator refuses
    (:func:`~ownership.core.storage.allocation_refused`).
    """
    return quiet_op(fn, None)


def quiet_op(fn: Callable[P, R], name: str | None) -> Callable[P, R]:
    """:func:`quiet` for the op ``name`` of the table, whose inputs' edges are read when its
    kernel fails (:func:`edges_first`); None: a function of no op."""
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


_source: ModuleType | None = None
"""The module the ops come from, :mod:`ownership.ops.table`, once :func:`install` gave it."""


def install(table: ModuleType) -> None:
    """Take the ops of ``table`` (:mod:`ownership.ops.table`, which the ops layer above this one
    defines) for :data:`ops`, filled from it at the first lookup. Called once, by
    :func:`ownership.installation.install`."""
    global _source
    _source = table


def _fill() -> None:
    """Install every op of :mod:`ownership.ops.table` into :data:`ops`, quieted
    (:func:`quiet_op`) unless it computes no element (:data:`ownership.ops.table.NO_ARITHMETIC`)."""
    table = _source
    if table is None:
        raise RuntimeError("no op table yet: ownership.installation.install() has not run")
    for name in table.__all__:
        fn = getattr(table, name)
        _set(name, fn if name in table.NO_ARITHMETIC else quiet_op(fn, name))
    # filled: its lookups need no ``__getattr__`` any more, and Python specializes the lookups
    # of a module only while it has none (a name that is not an op: the module's AttributeError)
    vars(_TABLE).pop("__getattr__", None)


_QUIETED: dict[str, Callable[..., Any]] = {}
"""The ops of :data:`ops` by name (:data:`OPS`), as :func:`_set` sets them."""


def _set(name: str, fn: Callable[..., Any]) -> None:
    """Make ``fn`` the op ``name`` of :data:`ops` and :data:`OPS`."""
    _QUIETED[name] = fn
    setattr(_TABLE, name, fn)


def _missing(name: str) -> Any:
    """The op table's ``__getattr__`` until it is filled (a module's, asked only for a name its
    dict does not hold): fills it, at the first lookup of an op."""
    if name.startswith("__") or _QUIETED:  # not an op
        raise AttributeError(f"ownership has no op {name!r}")
    _fill()
    return getattr(_TABLE, name)


def _filled() -> dict[str, Callable[..., Any]]:
    """The ops by name, filled if no op was looked up yet."""
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


# a module object: Python specializes an attribute lookup of a module (``ops.add``) to one
# indexed read of its dict once it has no ``__getattr__`` (removed when filled), which it never
# does for an object whose class has one (``ops`` is looked up by every method call)
_TABLE = ModuleType("ownership.core.op_registry.ops", "The op table by attribute.")
vars(_TABLE)["__getattr__"] = _missing
ops: Any = _TABLE
"""The op table by attribute: ``ops.add(self, other)``; a module names its type as it takes it,
``ops: CoreOps[Tensor] = op_registry.ops`` in core (the ops core calls), ``ops: OpTable[Tensor] =
op_registry.ops`` above (every op: :class:`ownership.ops.op_table.OpTable`)."""

OPS: Mapping[str, Callable[..., Any]] = _OpsByName()
"""The same ops by name (see :mod:`ownership.ops.table`)."""


Observer = Callable[[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]
"""What :func:`watch` calls for each op call: ``observer(name, op, args, kwargs)``, which runs
``op(*args, **kwargs)`` itself and returns its result."""

_UNWATCHED: dict[str, Callable[..., Any]] = {}
"""While an observer watches: each op as it was before."""


def watch(observer: Observer) -> None:
    """The one observer point of the op calls: until :func:`unwatch`, every call of an op, from
    a Tensor method, a ``torch`` function or an operator (``a - b``), goes through ``observer``.
    The doctor watches the engine this way (:mod:`ownership.doctor.ownership_watch`); while no
    one watches, an op call costs nothing more."""
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


def _watched(observer: Observer, name: str, op: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(op)
    def watched(*args: Any, **kwargs: Any) -> Any:
        return observer(name, op, args, kwargs)

    return watched
