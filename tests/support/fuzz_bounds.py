"""The fuzzer's tolerance: a bound on how far ownership's values may be from torch's, that follows
the computation op by op.

:class:`Bounds` is a ``TorchDispatchMode`` active while a statement runs under torch (a second
run: the mode changes some of torch's view metadata, so the fuzzer compares the facts of a run
without it, and takes from this one only the bounds). It sees every
ATen op torch runs (the forward ops, the ops of a backward, the writes of ``AccumulateGrad`` and of
in-place ops through views) and keeps, for every element of every storage, a bound ``e`` on
``|torch's value - ownership's value|``:

- ``e = 0``: both engines must hold the same bits (the sign of zero included). A value is exact
  when it is a literal, a creation, a copy, a view, a selection (indexing, ``cat``, ``where``,
  ``relu``, ``max`` ...) of exact values, or the result of a *correctly rounded* op (``+ - * /``,
  ``x ** 2``, a conversion) on exact values: IEEE gives such an op one result.
- ``0 < e < inf``: the values must agree within ``e``. ``e`` grows by what the op does to its
  inputs' bounds (first-order condition, made rigorous where it is cheap: ``exp`` multiplies by
  ``|y|`` (``|y| * expm1(e)``), ``a * b`` gives ``|a| e_b + |b| e_a + e_a e_b``, a sum adds the
  bounds of its terms, ``a / b`` gives ``(e_a + |y| e_b) / (|b| - e_b)``, ``sigmoid`` and ``tanh``
  are Lipschitz with constants 1/4 and 1, selections keep the bound of what they select) plus the
  op's own rounding, in units of the result dtype's ``eps`` (``numpy.finfo``; float32 and float64
  each their own): a correctly rounded op adds ``eps * |y|`` once its inputs are inexact; a
  *kernel* (``exp``, ``sigmoid``, ``tanh``, ``sqrt``, ``1 / x``, softmax, sums and means, products, norms,
  matrix products, and every op of a backward, whose formula each engine may order differently)
  adds ``2 * ULPS * eps`` times the sum of the magnitudes of its terms: ``|y|`` for an
  elementwise kernel, ``sum |x|`` for a sum of ``n`` terms (times ``n``), ``|a| @ |b|`` for a matrix
  product (times the inner size) -- the condition of the op, so that a sum that cancels to 1e-17
  keeps the rounding of terms of size 1.
- ``e`` = the dtype's smallest subnormal, on a zero: only its sign may differ. The sign of a zero
  that a backward's formula or a matrix product's accumulator makes is the engine's (``0 * -x``
  is ``-0.0``, a ``masked_fill`` of 0 or a BLAS accumulator that starts at 0 gives ``+0.0``).
- ``e = inf``: the value is *undetermined*: not compared. A decision (a comparison, ``sign``,
  ``floor``, a cast to an integer or ``bool``, ``argmax``, ``max(dim)``'s indices, ``relu``'s
  gradient, the mask of ``where``/``masked_fill``) whose input lies within its bound of the decision
  point may go either way in the other engine; its result is undetermined, and so is everything
  computed from it (writes in place included). When a boolean mask that selects elements is
  undetermined, the result's *shape* is too: its storage is *shapeless*, and of what lives in
  it only the dtype and the autograd flags are compared.

``ULPS`` is each engine's budget per kernel (torch's SLEEF kernels are within 1 ULP, numpy's
within a few; a composed kernel such as ``sigmoid`` a few roundings), so two engines differ by at
most ``2 * ULPS`` ULPs of the terms. An op without a rule here makes its results undetermined and
is listed in :attr:`Bounds.unhandled` (the fuzzer prints them: a rule to write, never a silence).
"""

from __future__ import annotations

import copy
import math
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

ULPS = 4.0
"""Each engine's error budget for one kernel, in ULPs of the magnitudes of its terms."""

INF = np.inf
Array = np.ndarray[Any, Any]
INDEX_ARGS = frozenset({"indices", "index", "mask", "condition"})
"""Schema arguments that choose elements (a decision), never data whose bound is carried."""


def eps(dtype: torch.dtype) -> float:
    """The machine epsilon of a floating dtype (0 for integers and booleans: exact)."""
    return float(torch.finfo(dtype).eps) if dtype.is_floating_point else 0.0


def values(t: torch.Tensor) -> Array:
    """``t``'s values as a float64 numpy array (a copy)."""
    return np.array(t.detach().resolve_neg().resolve_conj().numpy(), dtype=np.float64)


def storage_key(t: torch.Tensor) -> int | None:
    """The storage ``t``'s elements live in (``None`` when it has no elements)."""
    return t.untyped_storage().data_ptr() if t.numel() else None


class Bounds(TorchDispatchMode):
    """Per storage element, the bound ``e`` on ``|torch - ownership|`` (the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        # storage -> (the storage, kept alive so that no other storage gets its address; e)
        self.stores: dict[int, tuple[Any, Array]] = {}
        self.shapeless: set[int] = set()
        self._shapeless_empty: dict[int, weakref.ref[torch.Tensor]] = {}
        self.unhandled: set[str] = set()

    # -- reading and writing bounds --------------------------------------------------------
    def _view(self, t: torch.Tensor, create: bool) -> Array | None:
        key = storage_key(t)
        if key is None:
            return None
        size = t.untyped_storage().nbytes() // max(t.element_size(), 1)
        extent = (
            t.storage_offset()
            + sum((n - 1) * s for n, s in zip(t.shape, t.stride(), strict=True))
            + 1
        )
        held = self.stores.get(key)
        if held is None or held[1].size < max(size, extent):
            if held is None and not create:
                return None
            store = np.zeros(max(size, extent))
            if held is not None:
                store[: held[1].size] = held[1]
            held = (t.untyped_storage(), store)
            self.stores[key] = held
        store = held[1]
        return np.lib.stride_tricks.as_strided(
            store[t.storage_offset() :], tuple(t.shape), tuple(8 * s for s in t.stride())
        )

    def error(self, t: torch.Tensor) -> Array:
        """The bound of each element of ``t`` (a copy; zeros for what no op wrote)."""
        view = self._view(t, create=False)
        return np.zeros(tuple(t.shape)) if view is None else np.array(view)

    def is_shapeless(self, t: torch.Tensor) -> bool:
        """Whether ``t``'s shape depends on an undetermined mask."""
        key = storage_key(t)
        if key is None:
            held = self._shapeless_empty.get(id(t))
            return held is not None and held() is t
        return key in self.shapeless

    def mark_shapeless(self, tensors: Iterable[torch.Tensor]) -> None:
        """Make ``tensors``' shapes undetermined: by their storage, or, a tensor without elements
        (a mask that selected none here, which another CPU's rounding may not), by itself."""
        for t in tensors:
            key = storage_key(t)
            if key is None:
                self._shapeless_empty[id(t)] = weakref.ref(t)
            else:
                self.shapeless.add(key)

    def _write(self, t: torch.Tensor, e: Array, fresh: bool) -> None:
        key = storage_key(t)
        if key is None:
            return
        if fresh:  # a new storage (never an old one's address: the stores keep those alive)
            self.stores.pop(key, None)
        view = self._view(t, create=True)
        assert view is not None
        e = _finite(np.asarray(e, dtype=np.float64))
        if not t.dtype.is_floating_point:
            e = np.where(e > 0, INF, 0.0)
        view[...] = np.broadcast_to(e.reshape(view.shape) if e.size == view.size else e, view.shape)

    # -- the dispatch ----------------------------------------------------------------------
    def __torch_dispatch__(
        self, func: Any, types: Any, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__.rstrip("_")
        if name in METADATA:
            return func(*args, **kwargs)
        if func.is_view:  # its elements are its input's, unless it copied them (``reshape``)
            out = func(*args, **kwargs)
            inputs = _Inputs(self, func, args, kwargs)
            if all(storage_key(t) in inputs.storages for t in _tensors(out)):
                if inputs.shapeless:
                    self.mark_shapeless(_tensors(out))
                return out
        else:
            inputs = _Inputs(self, func, args, kwargs)
            out = func(*args, **kwargs)
        written = inputs.written()
        targets = written or _tensors(out)
        try:
            with np.errstate(all="ignore"):
                rule = _selection if func.is_view else RULES.get(name)
                errors = self._follow(rule, inputs, targets)
        except Exception as exc:  # a rule that cannot follow: undetermined, and said
            self.unhandled.add(f"{func} ({type(exc).__name__}: {exc})")
            errors = [np.full(tuple(t.shape), INF) for t in targets]
        for t, e in zip(targets, errors, strict=True):
            if not written and storage_key(t) in inputs.storages:
                continue  # an input returned (an alias): its bounds are there
            try:
                self._write(t, e, fresh=not written)
            except ValueError as exc:  # a rule's slip in shape: undetermined, and said
                self.unhandled.add(f"{func} ({type(exc).__name__}: {exc})")
                self._write(t, np.full(tuple(t.shape), INF), fresh=not written)
            if inputs.shapeless:
                if not written:
                    self.mark_shapeless([t])
                elif storage_key(t) is not None:
                    self._write(t, np.full(tuple(t.shape), INF), fresh=False)
        return out

    def _follow(
        self, rule: Rule | None, inputs: _Inputs, targets: list[torch.Tensor]
    ) -> list[Array]:
        """The bound of each result, by ``rule`` (undetermined for an op without a rule)."""
        name = inputs.func.overloadpacket.__name__.rstrip("_")
        errors = rule(inputs, targets) if rule else None
        if errors is None:
            self.unhandled.add(str(inputs.func))
            return [np.full(tuple(t.shape), INF) for t in targets]
        if inputs.in_backward:
            errors = [_backward(name, e, t) for e, t in zip(errors, targets, strict=True)]
        return errors


def _backward(name: str, e: Array, t: torch.Tensor) -> Array:
    """An op of a backward: a formula each engine may order its own way, so a correctly rounded
    op rounds as a kernel, and a zero's sign is undetermined (``0 * -x`` is ``-0.0``, a
    ``masked_fill`` of 0 is ``+0.0``): a zero gets at least the dtype's smallest subnormal, a
    bound that lets only the sign differ."""
    if not t.dtype.is_floating_point:
        return e
    y = values(t)
    if name in CORRECTLY_ROUNDED:
        e = e + _kernel(t, np.abs(y))
    return np.where(y == 0, np.maximum(e, _tiny(t)), e)


def _tiny(t: torch.Tensor) -> float:
    """The smallest subnormal of ``t``'s dtype (0 for integers: their zeros have no sign)."""
    if not t.dtype.is_floating_point:
        return 0.0
    return float(np.finfo(str(t.dtype).rsplit(".", 1)[-1]).smallest_subnormal)


def _tensors(tree: Any) -> list[torch.Tensor]:
    return [t for t in tree_flatten(tree)[0] if isinstance(t, torch.Tensor)]


METADATA = frozenset({
    "detach", "set", "_has_compatible_shallow_copy_type", "resize", "as_strided", "squeeze",
    "unsqueeze", "transpose", "t", "swapdims", "_version", "is_same_size", "requires_grad",
    "_record_function_enter_new", "_record_function_exit",
})  # fmt: skip
"""In-place ops on a tensor's metadata (and queries, and the profiler's marks an optimizer's
``step`` makes): its elements, and so their bounds, stay."""


class _Inputs:
    """An op's tensor arguments before it runs: values, bounds, which are written."""

    def __init__(
        self, bounds: Bounds, func: Any, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> None:
        self.bounds, self.func, self.args, self.kwargs = bounds, func, list(args), kwargs
        schema = func._schema.arguments
        self.names = [a.name for a in schema]
        self.writes = [a.name for a in schema if a.alias_info is not None and a.alias_info.is_write]
        self.by_name: dict[str, Any] = dict(zip(self.names, args, strict=False))
        self.by_name.update(kwargs)
        tensors = _tensors([list(args), kwargs])
        self.storages = {storage_key(t) for t in tensors}
        self.shapeless = any(bounds.is_shapeless(t) for t in tensors)
        self.in_backward = torch._C._current_autograd_node() is not None
        self._values = {id(t): values(t) for t in tensors}
        self._errors = {id(t): bounds.error(t) for t in tensors}

    def written(self) -> list[torch.Tensor]:
        """The tensors the op writes in place (empty for an op that makes fresh results; each of
        a list's for a ``_foreach_`` op)."""
        return _tensors([self.by_name.get(n) for n in self.writes])

    def element(self, func: Any, args: Sequence[Any]) -> _Inputs:
        """The inputs of ``func`` on ``args``: one element's op of a ``_foreach_`` op, with the
        values and bounds its arguments had before the ``_foreach_`` op ran."""
        part = copy.copy(self)
        part.func, part.args, part.kwargs = func, list(args), {}
        part.names = [a.name for a in func._schema.arguments]
        part.by_name = dict(zip(part.names, args, strict=False))
        return part

    def get(self, name: str, default: Any = None) -> Any:
        """The argument ``name`` (positional or keyword)."""
        return self.by_name.get(name, default)

    def x(self, arg: Any) -> Array:
        """The values of a tensor (or Python number) argument, before the op."""
        if isinstance(arg, torch.Tensor):
            return self._values[id(arg)]
        return np.asarray(arg, dtype=np.float64)

    def e(self, arg: Any, into: torch.Tensor | None = None) -> Array:
        """The bounds of a tensor (or Python number: 0) argument, before the op; with ``into``
        (the result), plus the rounding of a wider float argument to the result's dtype, in
        which torch computes."""
        if not isinstance(arg, torch.Tensor):
            return np.zeros(())
        e = self._errors[id(arg)]
        if into is not None and arg.dtype.is_floating_point and eps(arg.dtype) < eps(into.dtype):
            e = e + eps(into.dtype) * np.abs(self.x(arg))
        return e

    def first(self) -> torch.Tensor:
        """The first tensor argument."""
        return next(a for a in tree_flatten(self.args)[0] if isinstance(a, torch.Tensor))

    def call_on_errors(self) -> Any:
        """The op run on the bounds in place of the data (a selection: index, cat, where ...),
        the arguments that choose elements kept."""

        def swap(name: str, a: Any) -> Any:
            if name in INDEX_ARGS:
                return a
            if isinstance(a, torch.Tensor):
                return torch.from_numpy(self.e(a).copy())
            if isinstance(a, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in a):
                return type(a)(torch.from_numpy(self.e(x).copy()) for x in a)
            if isinstance(a, bool) or not isinstance(a, (int, float)):
                return a
            return 0.0 if name in ("value", "fill_value", "other", "src") else a

        args = [swap(n, a) for n, a in zip(self.names, self.args, strict=False)]
        kwargs = {k: swap(k, v) for k, v in self.kwargs.items() if k not in ("dtype", "layout")}
        return self.func(*args, **kwargs)  # an in-place op writes a copy of the bounds

    def undetermined_choice(self) -> bool:
        """Whether an argument that chooses elements (an index, a mask) is itself undetermined."""
        return any(
            isinstance(t, torch.Tensor) and bool(np.isinf(self.e(t)).any())
            for n in INDEX_ARGS
            for t in tree_flatten(self.get(n))[0]
        )


# -- the rules: (inputs, outputs) -> the bound of each output ----------------------------------
Rule = Callable[[_Inputs, list[torch.Tensor]], list[Array] | None]
RULES: dict[str, Rule] = {}
CORRECTLY_ROUNDED = frozenset({"add", "sub", "rsub", "mul", "div", "pow"})
"""Ops IEEE rounds once (same inputs, same bits), unless they run in a backward (whose formulas
the engines may order differently)."""


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register a rule for ATen ops ``names`` (their in-place forms share it)."""

    def register(f: Rule) -> Rule:
        for n in names:
            RULES[n] = f
        return f

    return register


def _kernel(t: torch.Tensor, terms: Array, count: float = 1.0) -> Array:
    """The rounding of a kernel whose result is made of terms of magnitude ``terms``."""
    return 2.0 * ULPS * count * eps(t.dtype) * terms


def _rounded(t: torch.Tensor, propagated: Array, y: Array) -> Array:
    """A correctly rounded op: one rounding once the inputs are inexact."""
    return np.where(propagated > 0, propagated + eps(t.dtype) * (np.abs(y) + propagated), 0.0)


def _finite(a: Array) -> Array:
    return np.nan_to_num(a, nan=INF, posinf=INF)


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    if dim is None or dim == [] or dim == ():
        return tuple(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return tuple(d % max(ndim, 1) for d in dims)


@rule(
    "lift_fresh", "ones_like", "zeros_like", "empty_like", "full_like", "ones", "zeros", "full",
    "empty", "arange", "scalar_tensor", "new_zeros", "new_ones", "new_full", "new_empty",
    "new_empty_strided", "empty_strided", "zero", "fill", "isnan", "_local_scalar_dense",
    "uniform", "normal", "isinf",
)  # fmt: skip
def _constant(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """Creations and fills by a constant: exact (``fill_`` by a tensor carries its bound; ``isnan``
    or ``isinf`` of an inexact value is undetermined only where the value is). Seeded draws (a module's
    initial weights) are exact too: both engines draw torch's numbers bit for bit."""
    if i.func.overloadpacket.__name__.startswith("fill") and isinstance(
        i.get("value"), torch.Tensor
    ):
        return [np.broadcast_to(i.e(i.get("value")), tuple(outs[0].shape))]
    if i.func.overloadpacket.__name__ in ("isnan", "isinf"):
        return [np.isinf(i.e(i.first())) * INF]
    return [np.zeros(tuple(t.shape)) for t in outs]


@rule(
    "clone", "copy", "index", "index_select", "cat", "stack", "where", "masked_fill", "index_put",
    "_index_put_impl", "slice_backward", "select_backward", "diagonal_backward", "_unsafe_view",
    "as_strided_scatter", "slice_scatter", "select_scatter", "diagonal_scatter", "flip", "scatter",
    "gather", "expand_copy", "permute_copy", "view_copy", "masked_select", "_to_copy", "alias_copy",
    "detach_copy", "contiguous", "_reshape_alias_copy", "index_add", "index_select_backward",
    "value_selecting_reduction_backward",
)  # fmt: skip
def _selection(i: _Inputs, outs: list[torch.Tensor]) -> list[Array] | None:
    """Ops that select, place or convert elements: the op itself, run on the bounds. An
    undetermined index or mask makes what it chooses undetermined (and a mask that selects, the
    shape); what adds into a place (``index_add``, ``index_put`` with ``accumulate``) rounds as
    ``+`` does; a conversion to an integer or ``bool`` decides (``trunc``, ``!= 0``)."""
    name = i.func.overloadpacket.__name__.rstrip("_")
    e = i.call_on_errors()
    e_arrays = [np.array(t.numpy(), dtype=np.float64) for t in tree_flatten(e)[0]]
    if i.undetermined_choice():
        if name in ("where", "masked_fill"):
            choose = i.get("condition", i.get("mask"))
            e_arrays = [np.where(np.isinf(i.e(choose)), INF, x) for x in e_arrays]
        else:
            e_arrays = [np.full(tuple(t.shape), INF) for t in outs]
            if name in ("index", "masked_select"):
                i.bounds.mark_shapeless(outs)
    if name in ("index_add", "index_select_backward") or i.get("accumulate", False) is True:
        e_arrays = [_rounded(outs[0], e_arrays[0], values(outs[0]))]
    if name in ("_to_copy", "copy") and len(outs) == 1:
        source = i.get("src", i.get("self"))
        e_arrays = [_cast(outs[0], i.x(source), i.e(source), e_arrays[0], source.dtype)]
    return e_arrays


def _cast(out: torch.Tensor, x: Array, e_in: Array, e: Array, source: torch.dtype) -> Array:
    """A conversion: to an integer, ``trunc`` decides; to ``bool``, ``!= 0``; to a narrower float,
    one rounding once inexact; else the bound is kept."""
    x = np.broadcast_to(x, e.shape)
    e_in = np.broadcast_to(e_in, e.shape)
    if not source.is_floating_point or out.dtype.is_floating_point:
        if out.dtype.is_floating_point and eps(out.dtype) > eps(source):
            return _rounded(out, e, values(out))
        return e
    with np.errstate(invalid="ignore"):
        if out.dtype == torch.bool:
            undetermined = (e_in > 0) & (np.abs(x) <= e_in)
        else:
            undetermined = (e_in > 0) & (np.trunc(x - e_in) != np.trunc(x + e_in))
    return np.where(undetermined | np.isinf(e), INF, 0.0)


@rule("neg", "abs", "relu", "clamp", "clamp_min", "clamp_max", "maximum", "minimum", "logical_not",
      "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_not")  # fmt: skip
def _lipschitz(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """Elementwise ops that move no value further than their inputs move: the largest bound."""
    tensors = [a for a in tree_flatten(i.args)[0] if isinstance(a, torch.Tensor)]
    shape = tuple(outs[0].shape)
    e = np.zeros(shape)
    for t in tensors:
        e = np.maximum(e, np.broadcast_to(i.e(t), shape))
    return [e]


@rule("add", "sub", "rsub")
def _add(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``a + alpha * b``: the bounds add (times ``|alpha|``), then one rounding. An ``alpha``
    other than a power of two (an optimizer's ``-lr``) makes ``alpha * b`` round before the sum,
    or not (torch's kernel may fuse them): each engine rounds the product and the sum, whatever
    its inputs."""
    alpha = abs(float(i.get("alpha", 1)))
    p = i.e(i.get("self"), outs[0]) + alpha * i.e(i.get("other"), outs[0])
    y = values(outs[0])
    e = _rounded(outs[0], np.broadcast_to(p, tuple(outs[0].shape)), y)
    if alpha and math.frexp(alpha)[0] != 0.5:
        e = e + eps(outs[0].dtype) * (np.abs(y) + 2 * alpha * np.abs(i.x(i.get("other"))))
    return [e]


@rule("mul")
def _mul(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``a * b``: ``|a| e_b + |b| e_a + e_a e_b``, then one rounding. A zero product of a
    factor whose sign is undetermined (``|x| <= e``: ``clip_grad_norm_``'s coefficient 0 times
    a gradient that cancels to ``-6e-08`` in one engine, ``0.0`` in the other) has an
    undetermined sign: at least the dtype's smallest subnormal."""
    a, b = i.get("self"), i.get("other")
    xa, xb, ea, eb = np.abs(i.x(a)), np.abs(i.x(b)), i.e(a, outs[0]), i.e(b, outs[0])
    shape = tuple(outs[0].shape)
    p = _finite(xa * eb + xb * ea + ea * eb)
    y = values(outs[0])
    e = _rounded(outs[0], np.broadcast_to(p, shape), y)
    unsure = np.broadcast_to(((ea > 0) & (xa <= ea)) | ((eb > 0) & (xb <= eb)), shape)
    return [np.where(unsure & (y == 0), np.maximum(e, _tiny(outs[0])), e)]


@rule("div")
def _div(i: _Inputs, outs: list[torch.Tensor]) -> list[Array] | None:
    """``a / b``: ``(e_a + |y| e_b) / (|b| - e_b)``, undetermined when ``b``'s sign is."""
    if i.get("rounding_mode") is not None:
        return None
    a, b = i.get("self"), i.get("other")
    y = values(outs[0])
    ea, eb, xb = i.e(a, outs[0]), i.e(b, outs[0]), np.abs(i.x(b))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(ea + eb > 0, _finite((ea + np.abs(y) * eb) / (xb - eb)), 0.0)
        p = np.where((eb > 0) & (xb <= eb), INF, p)
    return [_rounded(outs[0], np.broadcast_to(p, y.shape), y)]


@rule("addcmul", "addcdiv")
def _addc(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``self + value * t1 * t2`` and ``self + value * t1 / t2`` (an optimizer's moments and
    step): the product's or the quotient's bound (``div``'s, undetermined when ``t2``'s sign is)
    times ``|value|``, plus ``self``'s; a kernel: 3 ULPs of ``|self| + |value * t1 op t2|``."""
    name = i.func.overloadpacket.__name__.rstrip("_")
    out = outs[0]
    s, t1, t2 = i.get("self"), i.get("tensor1"), i.get("tensor2")
    v = abs(float(i.get("value", 1)))
    x1, x2, e1, e2 = i.x(t1), i.x(t2), i.e(t1, out), i.e(t2, out)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if name == "addcmul":
            q = x1 * x2
            eq = np.abs(x1) * e2 + np.abs(x2) * e1 + e1 * e2
        else:
            q = x1 / x2
            eq = np.where(e1 + e2 > 0, (e1 + np.abs(q) * e2) / (np.abs(x2) - e2), 0.0)
            eq = np.where((e2 > 0) & (np.abs(x2) <= e2), INF, eq)
        terms = np.abs(i.x(s)) + v * np.abs(q)
        return [_finite(i.e(s, out) + v * eq + _kernel(out, terms, 3))]


@rule("lerp")
def _lerp(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``self + w * (end - self)`` (Adam's first moment): ``|1 - w| e_self + |w| e_end`` (and
    ``|end - self| e_w`` for a tensor ``w``); a kernel: 3 ULPs of ``|self| + |w (end - self)|``."""
    out = outs[0]
    s, end, w = i.get("self"), i.get("end"), i.get("weight")
    xs, xe, xw = i.x(s), i.x(end), i.x(w)
    gap = np.abs(xe - xs)
    p = np.abs(1 - xw) * i.e(s, out) + np.abs(xw) * i.e(end, out) + gap * i.e(w, out)
    return [_finite(p + _kernel(out, np.abs(xs) + np.abs(xw) * gap, 3))]


@rule("pow")
def _pow(i: _Inputs, outs: list[torch.Tensor]) -> list[Array] | None:
    """``x ** k`` for a whole ``k >= 1``: ``(|x| + e)^k - |x|^k``, then one rounding."""
    k = i.get("exponent")
    if isinstance(k, torch.Tensor) or float(k) != int(k) or k < 1:
        return None
    x, e = np.abs(i.x(i.get("self"))), i.e(i.get("self"))
    with np.errstate(over="ignore", invalid="ignore"):
        p = np.where(e > 0, _finite((x + e) ** int(k) - x ** int(k)), 0.0)
    return [_rounded(outs[0], p, values(outs[0]))]


@rule("sqrt")
def _sqrt(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``sqrt`` (a kernel: torch's float64 SLEEF ``sqrt`` is not correctly rounded):
    ``min(sqrt(e), e / |y|)``; undetermined (NaN or not) when ``x`` is within ``e`` of 0."""
    x, e = i.x(i.get("self")), i.e(i.get("self"))
    y = values(outs[0])
    p = np.where(e > 0, np.minimum(np.sqrt(e), e / np.abs(y)), 0.0)
    p = np.where((e > 0) & (x - e < 0) & (x + e >= 0), INF, p)
    return [_finite(p + _kernel(outs[0], np.abs(y)))]


@rule("exp", "sigmoid", "tanh", "reciprocal")
def _transcendental(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """Kernels: ``exp`` ``|y| expm1(e)``; ``sigmoid`` ``e / 4``; ``tanh`` ``e``;
    ``1 / x`` ``e / (|x| (|x| - e))``; plus the kernels' rounding."""
    name = i.func.overloadpacket.__name__.rstrip("_")
    x, e = i.x(i.get("self")), i.e(i.get("self"))
    y = np.abs(values(outs[0]))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if name == "exp":
            p = np.where(e > 0, y * np.expm1(e), 0.0)
        elif name == "sigmoid":
            p = np.minimum(e / 4, 1.0)
        elif name == "tanh":
            p = np.minimum(e, 2.0)
        else:
            ax = np.abs(x)
            p = np.where(e > 0, np.where(ax > e, e / (ax * (ax - e)), INF), 0.0)
        return [_finite(p + _kernel(outs[0], y))]


@rule("sum", "mean", "cumsum", "nansum")
def _sum(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """A sum of ``n`` terms: the terms' bounds add, and the rounding is ``n`` ULPs of
    ``sum |terms|`` (the condition of the sum); a mean divides both by ``n``."""
    name = i.func.overloadpacket.__name__
    x, e = i.x(i.get("self")), i.e(i.get("self"))
    shape = tuple(outs[0].shape)
    if name == "cumsum":
        d = int(i.get("dim")) % max(x.ndim, 1)
        n = x.shape[d] if x.ndim else 1
        return [np.cumsum(e, d) + _kernel(outs[0], np.cumsum(np.abs(x), d), n)]
    dims = _dims(i.get("dim"), x.ndim)
    n = int(np.prod([x.shape[d] for d in dims])) if x.ndim else 1
    keep = bool(i.get("keepdim", False))
    total_e = np.sum(e, axis=dims, keepdims=keep) if x.ndim else e
    terms = np.sum(np.abs(x), axis=dims, keepdims=keep) if x.ndim else np.abs(x)
    if not outs[0].dtype.is_floating_point:
        return [np.broadcast_to(total_e, shape)]
    out = total_e + _kernel(outs[0], terms, max(n, 1))
    if name == "mean":
        out = out / max(n, 1)
    return [np.broadcast_to(out, shape)]


@rule("prod", "cumprod")
def _prod(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """A product: ``prod(|x| + e) - prod |x|``, plus ``n`` ULPs of ``prod(|x| + e)``."""
    name = i.func.overloadpacket.__name__
    x, e = np.abs(i.x(i.get("self"))), i.e(i.get("self"))
    shape = tuple(outs[0].shape)
    with np.errstate(over="ignore", invalid="ignore"):
        if name == "cumprod":
            d = int(i.get("dim")) % max(x.ndim, 1)
            hi, lo, n = np.cumprod(x + e, d), np.cumprod(x, d), x.shape[d] if x.ndim else 1
        else:
            dims = _dims(i.get("dim"), x.ndim)
            keep = bool(i.get("keepdim", False))
            hi = np.prod(x + e, axis=dims, keepdims=keep) if x.ndim else x + e
            lo = np.prod(x, axis=dims, keepdims=keep) if x.ndim else x
            n = int(np.prod([x.shape[d] for d in dims])) if x.ndim else 1
        return [np.broadcast_to(_finite(hi - lo + _kernel(outs[0], hi, max(n, 1))), shape)]


@rule("linalg_vector_norm")
def _norm(i: _Inputs, outs: list[torch.Tensor]) -> list[Array] | None:
    """A p-norm (``p != 0``) grows with each ``|x|``: it moves at most as far as from ``|x|`` to
    ``|x| + e`` or to ``max(|x| - e, 0)``; plus ``n + 2`` ULPs of ``|y|`` (times ``1 / |p|``, by
    which the root amplifies the rounding of the sum). The 0-"norm" counts the nonzeros:
    undetermined where an element's bound reaches 0."""
    p = float(i.get("ord", 2))
    x, e = np.abs(i.x(i.get("self"))), i.e(i.get("self"))
    dims = _dims(i.get("dim"), x.ndim)
    keep = bool(i.get("keepdim", False))
    n = int(np.prod([x.shape[d] for d in dims])) if x.ndim else 1
    if p == 0:
        unsure = np.isinf(e) | ((e > 0) & (x <= e))
        return [np.where(np.any(unsure, axis=dims, keepdims=keep) if x.ndim else unsure, INF, 0.0)]

    def norm(a: Array) -> Array:
        a = a if x.ndim else a.reshape(1)
        with np.errstate(all="ignore"):
            if p == INF:
                return np.max(a, axis=dims or 0, keepdims=keep) if a.size else np.zeros(())
            if p == -INF:
                return np.min(a, axis=dims or 0, keepdims=keep) if a.size else np.zeros(())
            return np.sum(a**p, axis=dims or 0, keepdims=keep) ** (1.0 / p)

    y = norm(x)
    moved = np.maximum(norm(x + e) - y, y - norm(np.maximum(x - e, 0.0)))
    moved = np.where(np.isnan(moved), INF, moved)  # inf - inf: an infinite norm's bound
    rounding = _kernel(outs[0], np.abs(values(outs[0])), (n + 2) * max(1.0, 1.0 / abs(p)))
    return [_finite(np.reshape(moved, tuple(outs[0].shape)) + rounding)]


FOREACH = {
    "_foreach_norm": torch.ops.aten.linalg_vector_norm.default,
    "_foreach_mul": torch.ops.aten.mul.Tensor,
    "_foreach_clamp_min": torch.ops.aten.clamp_min.default,
    "_foreach_clamp_max": torch.ops.aten.clamp_max.default,
}
"""The ``_foreach_`` ops (``clip_grad_norm_``'s and ``clip_grad_value_``'s on CPU), each the op
it applies to every element of its lists."""


@rule(*FOREACH)
def _foreach(i: _Inputs, outs: list[torch.Tensor]) -> list[Array] | None:
    """A ``_foreach_`` op: the rule of its element op, element by element (the ``k``-th of each
    list argument; every other argument as it is)."""
    func = FOREACH[i.func.overloadpacket.__name__.rstrip("_")]
    errors = []
    for k, out in enumerate(outs):
        args = [a[k] if isinstance(a, (list, tuple)) else a for a in i.args]
        e = RULES[func.overloadpacket.__name__](i.element(func, args), [out])
        if e is None:
            return None
        errors += e
    return errors


@rule("mm", "bmm", "mv", "dot", "matmul")
def _matmul(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """A matrix product: ``|a| @ e_b + e_a @ |b| + e_a @ e_b``, plus ``k`` ULPs of
    ``|a| @ |b|`` (``k`` the inner size). A zero's sign is the BLAS kernel's (its accumulator may
    start at ``+0.0``; torch gives ``2 * -0.0`` for an inner size of 1): undetermined."""
    tensors = [a for a in i.args if isinstance(a, torch.Tensor)]
    p, terms, k = _product(i, tensors[0], tensors[1], outs[0])
    e = _finite(p + _kernel(outs[0], terms, k))
    return [np.where(values(outs[0]) == 0, np.maximum(e, _tiny(outs[0])), e)]


def _product(
    i: _Inputs, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor
) -> tuple[Array, Array, int]:
    """A matrix product's propagated bound, the magnitudes of its terms and its inner size."""
    xa, xb, ea, eb = np.abs(i.x(a)), np.abs(i.x(b)), i.e(a, out), i.e(b, out)
    k = xa.shape[-1] if xa.ndim else 1
    return xa @ eb + ea @ xb + ea @ eb, xa @ xb, k


@rule("addmm")
def _addmm(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``beta * self + alpha * (mat1 @ mat2)`` (``Linear`` with a bias): the product's bound and
    the bias's, scaled, plus ``k + 1`` ULPs of the terms; a zero's sign is the kernel's."""
    alpha, beta = abs(float(i.get("alpha", 1))), abs(float(i.get("beta", 1)))
    p, terms, k = _product(i, i.get("mat1"), i.get("mat2"), outs[0])
    bias = i.get("self")
    p = alpha * p + beta * i.e(bias, outs[0])
    terms = alpha * terms + beta * np.abs(i.x(bias))
    e = _finite(p + _kernel(outs[0], terms, k + 1))
    return [np.where(values(outs[0]) == 0, np.maximum(e, _tiny(outs[0])), e)]


def _channels(x: Array, a: Any) -> Array:
    """A per-channel array shaped to broadcast against a batch ``x`` (channels on dim 1)."""
    shape = [1] * x.ndim
    shape[1] = x.shape[1]
    return np.reshape(np.broadcast_to(np.asarray(a, dtype=np.float64), (x.shape[1],)), shape)


def _normalized(i: _Inputs, mean: Any, invstd: Any) -> tuple[Array, Array, Array, Array]:
    """The batch ``input`` and its bound, ``x_hat = (x - mean) * invstd`` and its bound (from the
    bounds of ``mean`` and ``invstd`` that ``native_batch_norm`` saved or kept running)."""
    x, e = i.x(i.get("input")), i.e(i.get("input"))
    m, em, inv, einv = (_channels(x, a) for a in mean + invstd)
    d = np.abs(x - m)
    return x, e, (x - m) * inv, (e + em) * (inv + einv) + d * einv


@rule("native_batch_norm")
def _batch_norm(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``(x - mean) / sqrt(var + eps) * w + b`` over the channels of dim 1: in training the batch's
    ``mean`` (a sum of ``n`` terms) and biased ``var`` (``n`` terms ``(x - mean)^2``), whose bounds
    it also writes into ``running_mean``/``running_var`` (``(1 - m) r + m s``, the variance
    unbiased), else the running ones; ``1 / sqrt`` moves by at most
    ``1 / sqrt(v - e_v) - 1 / sqrt(v)`` (undetermined when ``e_v`` reaches ``v``). The outputs: the
    result, the saved mean and the saved ``1 / sqrt(var + eps)`` (empty when not training)."""
    x, e = i.x(i.get("input")), i.e(i.get("input"))
    out = outs[0]
    axes = tuple(d for d in range(x.ndim) if d != 1)
    n = x.size // max(x.shape[1], 1)
    running = i.get("running_mean"), i.get("running_var")
    if i.get("training"):
        mean = x.mean(axis=axes)
        em = e.mean(axis=axes) + _kernel(out, np.abs(x).mean(axis=axes), n)
        d = np.abs(x - _channels(x, mean)) + e + _channels(x, em)
        var = ((x - _channels(x, mean)) ** 2).mean(axis=axes)
        ev = (d**2).mean(axis=axes) - var + _kernel(out, (d**2).mean(axis=axes), n + 2)
    else:
        mean, em = i.x(running[0]), i.e(running[0])
        var, ev = i.x(running[1]), i.e(running[1])
    v = var + float(i.get("eps"))
    inv = 1 / np.sqrt(v)
    with np.errstate(invalid="ignore", divide="ignore"):
        einv = np.where(ev < v, 1 / np.sqrt(np.maximum(v - ev, 0)) - inv, INF) + _kernel(
            out, inv, 2
        )
    x, e, xhat, exhat = _normalized(i, (mean, em), (inv, einv))
    w, b = i.get("weight"), i.get("bias")
    xw, ew = (np.abs(i.x(w)), i.e(w)) if w is not None else (1.0, 0.0)
    xb, eb = (np.abs(i.x(b)), i.e(b)) if b is not None else (0.0, 0.0)
    xw, ew, xb, eb = (_channels(x, a) for a in (xw, ew, xb, eb))
    terms = np.abs(xhat) * xw + xb
    ey = exhat * (xw + ew) + np.abs(xhat) * ew + eb + _kernel(out, terms, 4)
    if i.get("training") and running[0] is not None:
        m = float(i.get("momentum"))
        unbiased = n / max(n - 1, 1)
        for r, s, es in ((running[0], mean, em), (running[1], var * unbiased, ev * unbiased)):
            xr = np.abs(i.x(r))
            er = (1 - m) * i.e(r) + m * es + _kernel(r, (1 - m) * xr + m * np.abs(s), 3)
            i.bounds._write(r, er, fresh=False)
    saved = [np.zeros(tuple(t.shape)) for t in outs[1:]]
    if i.get("training"):
        saved = [em, einv]
    return [ey, *saved]


@rule("native_batch_norm_backward")
def _batch_norm_backward(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """The gradients of ``native_batch_norm``, with ``g`` the output's gradient: for the input
    ``w * invstd * (g - mean(g) - x_hat * mean(g * x_hat))`` in training (``w * invstd * g`` not),
    for the weight ``sum(g * x_hat)``, for the bias ``sum(g)``: bilinear bounds of those terms, plus
    ``n + 4`` ULPs of their magnitudes."""
    training = bool(i.get("train"))
    if training:
        stats = i.get("save_mean"), i.get("save_invstd")
        mean, invstd = (i.x(stats[0]), i.e(stats[0])), (i.x(stats[1]), i.e(stats[1]))
    else:
        rm, rv = i.get("running_mean"), i.get("running_var")
        v = i.x(rv) + float(i.get("eps"))
        inv = 1 / np.sqrt(v)
        with np.errstate(invalid="ignore", divide="ignore"):
            einv = np.where(i.e(rv) < v, 1 / np.sqrt(np.maximum(v - i.e(rv), 0)) - inv, INF)
        mean, invstd = (i.x(rm), i.e(rm)), (inv, einv)
    x, _, xhat, exhat = _normalized(i, mean, invstd)
    g, eg = i.x(i.get("grad_out")), i.e(i.get("grad_out"))
    axes = tuple(d for d in range(x.ndim) if d != 1)
    n = x.size // max(x.shape[1], 1)
    w = i.get("weight")
    xw, ew = (np.abs(i.x(w)), i.e(w)) if w is not None else (1.0, 0.0)
    inv, einv, xw, ew = (_channels(x, a) for a in (*invstd, xw, ew))
    egx = np.abs(g) * exhat + np.abs(xhat) * eg + eg * exhat
    if training:
        mg, mgx = _channels(x, g.mean(axis=axes)), _channels(x, (g * xhat).mean(axis=axes))
        emg, emgx = _channels(x, eg.mean(axis=axes)), _channels(x, egx.mean(axis=axes))
        inner = g - mg - xhat * mgx
        einner = eg + emg + np.abs(xhat) * emgx + exhat * (np.abs(mgx) + emgx)
        magnitude = np.abs(g) + np.abs(mg) + np.abs(xhat * mgx)
    else:
        inner, einner, magnitude = g, eg, np.abs(g)
    scale = xw * inv
    e_input = scale * einner + (ew * (inv + einv) + xw * einv) * (np.abs(inner) + einner)
    e_input = e_input + _kernel(outs[0], scale * magnitude, n + 4)
    e_weight = egx.sum(axis=axes) + _kernel(outs[0], np.abs(g * xhat).sum(axis=axes), n + 2)
    e_bias = eg.sum(axis=axes) + _kernel(outs[0], np.abs(g).sum(axis=axes), n)
    made = zip((e_input, e_weight, e_bias), i.get("output_mask"), strict=True)
    return [_finite(e) for e, wanted in made if wanted]


@rule("_softmax", "softmax")
def _softmax(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """softmax: each ratio moves by at most ``expm1(2 max e)`` of itself; rounding: the exps, the
    sum of ``n`` terms, the subtraction of the max (which ``exp`` amplifies by ``|x - max|``)."""
    x, e = i.x(i.get("self")), i.e(i.get("self"))
    d = int(i.get("dim")) % max(x.ndim, 1)
    y = np.abs(values(outs[0]))
    if not x.ndim or not x.size:
        return [_kernel(outs[0], y)]
    n = x.shape[d]
    with np.errstate(over="ignore", invalid="ignore"):
        spread = np.abs(x - np.max(x, axis=d, keepdims=True))
        p = y * np.expm1(2 * np.max(e, axis=d, keepdims=True))
        return [_finite(p + _kernel(outs[0], y * (n + 1 + spread)))]


@rule("_softmax_backward_data")
def _softmax_backward(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``o * (g - sum(g * o))``: bilinear bounds, and ``n`` ULPs of
    ``|o| (|g| + sum |g o|)`` (the terms, which cancel when the gradient is 0)."""
    g, o = i.get("grad_output"), i.get("output")
    xg, xo, eg, eo = i.x(g), i.x(o), i.e(g), i.e(o)
    d = int(i.get("dim")) % max(xo.ndim, 1)
    n = xo.shape[d] if xo.ndim else 1
    red = (lambda a: np.sum(a, axis=d, keepdims=True)) if xo.ndim else (lambda a: a)
    with np.errstate(invalid="ignore", over="ignore"):
        s = red(xg * xo)
        es = red(np.abs(xg) * eo + np.abs(xo) * eg + eg * eo)
        p = eo * np.abs(xg - s) + (np.abs(xo) + eo) * (eg + es)
        terms = np.abs(xo) * (np.abs(xg) + red(np.abs(xg * xo)))
        return [_finite(p + _kernel(outs[0], terms, n + 2))]


@rule("sigmoid_backward", "tanh_backward")
def _activation_backward(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``g * o (1 - o)`` and ``g * (1 - o^2)``: bilinear bounds, and ULPs of the terms."""
    g, o = i.get("grad_output"), i.get("output")
    xg, xo, eg, eo = np.abs(i.x(g)), i.x(o), i.e(g), i.e(o)
    with np.errstate(invalid="ignore", over="ignore"):
        if i.func.overloadpacket.__name__ == "sigmoid_backward":
            f, df, terms = np.abs(xo * (1 - xo)), eo * np.abs(1 - 2 * xo) + eo * eo, np.abs(xo)
        else:
            f, df, terms = np.abs(1 - xo * xo), 2 * np.abs(xo) * eo + eo * eo, 1 + xo * xo
        p = eg * f + (xg + eg) * df
        return [_finite(p + _kernel(outs[0], (xg + eg) * (terms + f), 3))]


@rule("threshold_backward")
def _threshold_backward(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """relu's gradient: ``g`` where ``x > threshold``, else 0; undetermined where ``x`` is within
    its bound of the threshold."""
    g, x = i.get("grad_output"), i.get("self")
    t = float(i.get("threshold"))
    xx, ex = i.x(x), i.e(x)
    shape = tuple(outs[0].shape)
    e = np.where(np.broadcast_to(xx > t, shape), np.broadcast_to(i.e(g), shape), 0.0)
    return [np.where(np.broadcast_to((ex > 0) & (np.abs(xx - t) <= ex), shape), INF, e)]


@rule("gt", "lt", "ge", "le", "eq", "ne")
def _compare(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """A comparison: exact, undetermined where ``|a - b| <= e_a + e_b``."""
    a, b = i.get("self"), i.get("other")
    e = i.e(a) + i.e(b)
    with np.errstate(invalid="ignore"):
        close = (e > 0) & ~(np.abs(i.x(a) - i.x(b)) > e)
    return [np.broadcast_to(np.where(close, INF, 0.0), tuple(outs[0].shape))]


@rule("sign", "sgn", "floor", "ceil", "trunc", "round", "frac")
def _step(i: _Inputs, outs: list[torch.Tensor]) -> list[Array] | None:
    """Steps: exact, undetermined where the step between ``x - e`` and ``x + e`` differs."""
    name = i.func.overloadpacket.__name__.rstrip("_")
    x, e = i.x(i.get("self")), i.e(i.get("self"))
    if name == "frac":
        return None
    step = {"sign": np.sign, "sgn": np.sign, "floor": np.floor, "ceil": np.ceil}.get(
        name, np.trunc if name == "trunc" else np.round
    )
    with np.errstate(invalid="ignore"):
        if name in ("sign", "sgn"):
            undetermined = (e > 0) & (np.abs(x) <= e)
        else:
            undetermined = (e > 0) & (step(x - e) != step(x + e))
    return [np.where(undetermined | np.isinf(e), INF, 0.0)]


@rule("max", "min", "amax", "amin", "argmax", "argmin", "all", "any")
def _extreme(i: _Inputs, outs: list[torch.Tensor]) -> list[Array]:
    """``max``/``min`` values move at most by the largest bound; which element (``argmax``,
    ``max(dim)``'s indices) is undetermined when another comes within the two bounds;
    ``all``/``any`` are undetermined when an element's truth is."""
    name = i.func.overloadpacket.__name__
    x, e = i.x(i.get("self")), i.e(i.get("self"))
    dim = i.get("dim")
    keep = bool(i.get("keepdim", False))
    if name in ("all", "any"):
        with np.errstate(invalid="ignore"):
            unsure = np.isinf(e) | ((e > 0) & (np.abs(x) <= e))
        dims = _dims(dim, x.ndim)
        u = np.any(unsure, axis=dims, keepdims=keep) if x.ndim else unsure
        return [np.where(u, INF, 0.0)]
    if isinstance(dim, (list, tuple)) or name in ("amax", "amin") or dim is None:
        dims = _dims(dim, x.ndim)
        top = np.max(e, axis=dims, keepdims=keep) if x.ndim and x.size else e
        if name in ("argmax", "argmin"):
            flat = x.reshape(-1) if dim is None else x
            ef = e.reshape(-1) if dim is None else e
            d = 0 if dim is None else int(dim) % max(x.ndim, 1)
            return [_which(flat, ef, d, name.endswith("max"), keep and dim is not None)]
        return [top]
    d = int(dim) % max(x.ndim, 1)
    top = np.max(e, axis=d, keepdims=keep) if x.ndim else e
    which = _which(x, e, d, name in ("max", "argmax"), keep)
    return [top, which] if len(outs) == 2 else [which if name.startswith("arg") else top]


def _which(x: Array, e: Array, d: int, largest: bool, keep: bool) -> Array:
    """Whether the index of the extreme along ``d`` is undetermined (``INF``) or exact (0)."""
    if not x.ndim:
        return np.zeros(())
    s = x if largest else -x
    best = np.argmax(s, axis=d)
    top = np.take_along_axis(s, np.expand_dims(best, d), d)
    e_top = np.take_along_axis(e, np.expand_dims(best, d), d)
    with np.errstate(invalid="ignore"):
        near = (s >= top - (e + e_top)) & ((e + e_top) > 0)
    np.put_along_axis(near, np.expand_dims(best, d), False, d)
    u = np.any(near, axis=d, keepdims=keep)
    return np.where(u, INF, 0.0)
