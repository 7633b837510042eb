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
import inspect
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any, ParamSpec, TypeVar

import numpy as np

__all__ = [
    "OPS",
    "edges_first",
    "install",
    "ops",
    "quiet",
    "quiet_op",
    "quiet_parts",
    "unwatch",
    "watch",
]

P = ParamSpec("P")
R = TypeVar("R")


def _ignoring_state() -> tuple[Any, Any]:
    """numpy's error-state context variable and its "ignore everything" value, or Nones.

    ``np.errstate(all="ignore")`` rebuilds numpy's error state on each entry (about 2 us, as
    much as a small op). numpy 2 keeps that state in a context variable: the ignoring value is
    built once, and each op only sets and resets the variable. numpy 1.x: ``np.errstate``.
    """
    try:
        from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
            _extobj_contextvar as state,
        )
    except ImportError:
        return None, None
    with np.errstate(all="ignore"):
        return state, state.get()


_STATE, _IGNORE = _ignoring_state()


_KERNEL_ERRORS = (RuntimeError, IndexError, ValueError)
"""The errors of an op's own checks (shapes, dims, values), which torch's kernel raises after its
autograd kernel collected the inputs' edges; a ``TypeError`` is its argument parser's, before."""


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
    """``fn`` with numpy's floating-point reports off: inf and nan are results, as in torch.

    ``inf * 0``, an overflow, the mean of an empty tensor: torch computes them silently, so no
    numpy ``RuntimeWarning`` (or ``FloatingPointError`` under ``np.seterr(all="raise")``) may
    reach the user. The caller's numpy error state is restored on return.
    """
    return _quieted(fn, None)


def _quieted(fn: Callable[P, R], name: str | None) -> Callable[P, R]:
    """:func:`quiet`; for ``name``, an op of the table, its inputs' edges are read when its own
    checks fail (:func:`edges_first`)."""

    if _STATE is None:

        @functools.wraps(fn)
        def with_errstate(*args: P.args, **kwargs: P.kwargs) -> R:
            with np.errstate(all="ignore"):
                try:
                    return fn(*args, **kwargs)
                except _KERNEL_ERRORS:
                    if name is not None:
                        edges_first(name, args, kwargs)
                    raise

        return with_errstate
    # numpy 2: the variable's methods and the value bound once (closure cells, read fastest)
    set_state, reset_state, ignore = _STATE.set, _STATE.reset, _IGNORE

    @functools.wraps(fn)
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        token = set_state(ignore)
        try:
            return fn(*args, **kwargs)
        except _KERNEL_ERRORS:
            if name is not None:
                edges_first(name, args, kwargs)
            raise
        finally:
            reset_state(token)

    return inner


def _positional(fn: Callable[..., Any]) -> tuple[int, bool] | None:
    """``(n, keywords)`` when ``fn`` takes exactly ``n`` positional parameters without defaults
    and, if ``keywords``, keyword-only ones (``add(a, b, *, alpha=1)``), nothing else (no
    ``*args``/``**kwargs``); else None."""
    code = getattr(fn, "__code__", None)
    if code is None or fn.__defaults__:
        return None
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return None
    return int(code.co_argcount), bool(code.co_kwonlyargcount)


def quiet_op(fn: Callable[..., R], name: str) -> Callable[..., R]:
    """:func:`quiet` for an op of the table. An op of one or two positional parameters (``tanh``,
    ``mul``; ``add`` with its keyword-only ``alpha``), which the engine calls with exactly those,
    gets a wrapper of that signature: the same errstate rule without packing ``*args`` (and
    ``**kwargs`` when there are none): a tenth of a microsecond of every call. Every other op
    gets :func:`quiet` itself. Each reads the inputs' edges of op ``name`` when the op's own
    checks fail (:func:`edges_first`)."""
    shape = _positional(fn)
    if _STATE is None or shape not in ((1, False), (2, False), (2, True)):
        return _quieted(fn, name)
    set_state, reset_state, ignore = _STATE.set, _STATE.reset, _IGNORE
    if shape == (1, False):

        @functools.wraps(fn)
        def one(a: Any, /) -> R:
            token = set_state(ignore)
            try:
                return fn(a)
            except _KERNEL_ERRORS:
                edges_first(name, (a,), None)
                raise
            finally:
                reset_state(token)

        return one
    if shape == (2, False):

        @functools.wraps(fn)
        def two(a: Any, b: Any, /) -> R:
            token = set_state(ignore)
            try:
                return fn(a, b)
            except _KERNEL_ERRORS:
                edges_first(name, (a, b), None)
                raise
            finally:
                reset_state(token)

        return two

    @functools.wraps(fn)
    def two_and_keywords(a: Any, b: Any, /, **kwargs: Any) -> R:
        token = set_state(ignore)
        try:
            return fn(a, b, **kwargs) if kwargs else fn(a, b)
        except _KERNEL_ERRORS:
            edges_first(name, (a, b), kwargs)
            raise
        finally:
            reset_state(token)

    return two_and_keywords


def quiet_parts() -> (
    tuple[
        Callable[[Any], Any],
        Callable[[Any], None],
        Any,
        tuple[type[Exception], ...],
        Mapping[str, Callable[..., Any]],
    ]
    | None
):
    """What :func:`quiet_op` puts around an op, for a caller that writes it out around the op
    itself (the Tensor's binary operators, :mod:`ownership.ops.tensor_operators`: one Python call
    fewer per operator): ``(set_state, reset_state, ignore, checks_failed, plain)``. Under numpy 2,
    ``set_state(ignore)`` switches numpy's error state off and returns the token
    ``reset_state(token)`` takes to put it back; ``checks_failed`` are the errors of an op's own
    checks, on which :func:`edges_first` runs; ``plain`` holds the table's ops before
    :func:`quiet_op` by name (looked up at each call: :func:`watch` routes them too). None under
    numpy 1 (``np.errstate``): call the quieted op."""
    if _STATE is None:
        return None
    return _STATE.set, _STATE.reset, _IGNORE, _KERNEL_ERRORS, _PLAIN


class _Unquieted(dict[str, Callable[..., Any]]):
    """The table's ops as :mod:`ownership.ops.table` defines them (before :func:`quiet_op`), by
    name: filled with the table, at the first lookup of either."""

    def __missing__(self, name: str) -> Callable[..., Any]:
        if self:  # filled already: the op does not exist
            raise KeyError(name)
        _fill()
        return self[name]


_PLAIN = _Unquieted()


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
        _PLAIN[name] = fn
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

_UNWATCHED: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {}
"""While an observer watches: each op's entries before it (the quieted op, the plain one)."""


def watch(observer: Observer) -> None:
    """The one observer point of the op calls: until :func:`unwatch`, every call of an op, from
    a Tensor method, a ``torch`` function or an operator (``a - b``, which calls the plain op),
    goes through ``observer``. The doctor watches the engine this way
    (:mod:`ownership.doctor.ownership_watch`); while no one watches, an op call costs nothing
    more."""
    if _UNWATCHED:
        raise RuntimeError("the op table is watched already")
    for name, quieted in list(_filled().items()):
        plain = _PLAIN[name]
        _UNWATCHED[name] = (quieted, plain)
        _set(name, _watched(observer, name, quieted))
        _PLAIN[name] = _watched(observer, name, plain)


def unwatch() -> None:
    """Put back every op :func:`watch` routed through its observer."""
    for name, (quieted, plain) in _UNWATCHED.items():
        _set(name, quieted)
        _PLAIN[name] = plain
    _UNWATCHED.clear()


def _watched(observer: Observer, name: str, op: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(op)
    def watched(*args: Any, **kwargs: Any) -> Any:
        return observer(name, op, args, kwargs)

    return watched
