"""``Tensor.view``'s and ``reshape``'s calls (the common ones, Python-int sizes, bound from the
parser's memory) and their remembered geometry agree with the parser's full path and with torch:
shape, strides, offset, ``_base``, version, ``grad_fn`` and its saved sizes, and every error,
for many sources and every argument form."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ownership
from ownership.core import layout
from ownership.ops import methods, view_shapes
from ownership.ops import view_geometry as view_ops

from support.arrays import array_facts
from support.differential import same

SOURCES = {
    "contiguous": lambda t: t.arange(24.0).requires_grad_(),
    "matrix": lambda t: t.arange(24.0).view(4, 6),
    "leaf_matrix": lambda t: t.arange(24.0).view(4, 6).detach().requires_grad_(),
    "transposed": lambda t: t.arange(24.0).view(4, 6).t(),
    "permuted": lambda t: t.arange(24.0).view(2, 3, 4).permute(1, 0, 2),
    "sliced": lambda t: t.arange(48.0).view(4, 12)[:, 2:8],
    "stepped": lambda t: t.arange(48.0).view(4, 12)[:, ::2],
    "size_one_dims": lambda t: t.arange(24.0).view(4, 1, 6, 1),
    # row-major by numpy's flags, yet a size-1 dim's stride is not the row-major one
    "row_of_column": lambda t: t.arange(24.0).view(24, 1).t(),
    "size_one_moved": lambda t: t.arange(24.0).view(4, 6, 1).permute(2, 0, 1),
    "expanded": lambda t: t.arange(6.0).view(6, 1).expand(6, 4),
    "expanded_rows": lambda t: t.arange(4.0).expand(6, 4),
    "int64": lambda t: t.arange(24),
    "float64_sliced": lambda t: t.arange(48, dtype=t.float64)[::2],
    "empty": lambda t: t.zeros(0, 4),
    "empty_view": lambda t: t.zeros(3, 4)[:, 4:],
    "scalar": lambda t: t.tensor(3.0, requires_grad=True),
    "one": lambda t: t.ones(1),
}

# every form the view method takes, good and bad (``None`` marks a form built from the source)
FORMS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((24,), {}),
    ((4, 6), {}),
    ((6, 4), {}),
    ((2, 3, 4), {}),
    ((-1,), {}),
    ((-1, 4), {}),
    ((4, -1), {}),
    ((2, -1, 2), {}),
    (((4, 6),), {}),
    (([4, 6],), {}),
    (([2, -1],), {}),
    ((), {}),
    (((),), {}),
    (([],), {}),
    ((1,), {}),
    ((1, 1), {}),
    ((1, 24), {}),
    ((1, -1, 1), {}),
    ((-1, 1), {}),
    ((0,), {}),
    ((0, 4), {}),
    ((0, -1), {}),
    ((4, 0), {}),
    ((3, 0, 4), {}),
    ((5, 5), {}),
    ((-1, -1), {}),
    ((-2, 12), {}),
    ((4, 6.0), {}),
    ((4.0, 6), {}),
    (((4, 6.0),), {}),
    ((4, None), {}),
    ((4, True), {}),
    ((24, True), {}),
    ((True,), {}),
    ((np.int64(4), 6), {}),
    ((4, np.int32(6)), {}),
    (((np.int64(4), 6),), {}),
    (("4",), {}),
    ((4, "6"), {}),
    (((4, 6), 1), {}),
    (([4, 6], [1]), {}),
    ((), {"size": (4, 6)}),
    ((), {"size": [24]}),
    ((4,), {"size": (4, 6)}),
    ((), {"shape": (4, 6)}),
]
VIEW = next(d.signatures for d in methods.DECLARED if d.name == "view")
"""``view``'s declaration: its parser's full path binds each form afresh (no memory)."""
ZERO_D_FORMS = [
    ("zero_d_int", lambda t: (t.tensor(24),)),
    ("zero_d_pair", lambda t: (t.tensor(4), 6)),
    # an int then a 0-d tensor, then the same with a float tensor (refused, though the first
    # call's pattern of types is remembered)
    ("int_then_zero_d", lambda t: (4, t.tensor(6))),
    ("int_then_zero_d_float", lambda t: (4, t.tensor(6.0))),
]


def _outcome(
    t: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], method: str = "view"
) -> Any:
    """What a learner sees of ``x.view(*args, **kwargs)``: the error, or the view's facts."""
    if method == "reshape" and "size" in kwargs:
        kwargs = {"shape": kwargs["size"]}
    try:
        y = getattr(x, method)(*args, **kwargs)
    except (RuntimeError, TypeError) as e:
        return type(e).__name__, str(e)
    fn = y.grad_fn
    return (
        tuple(y.shape),
        y.stride(),
        y.storage_offset(),
        y._base is (x if x._base is None else x._base),
        y._version,
        y.requires_grad,
        None if fn is None else fn.name(),
        None if fn is None else tuple(getattr(fn, "_saved_self_sym_sizes", ())),
        y,
    )


def _program(source: str, method: str) -> Any:
    def program(t: Any) -> Any:
        out = []
        for _ in range(2):  # the second round finds every geometry remembered
            x = SOURCES[source](t)
            out += [_outcome(t, x, args, kwargs, method) for args, kwargs in FORMS]
            out += [_outcome(t, x, make(t), {}, method) for _, make in ZERO_D_FORMS]
        return out

    return program


@pytest.mark.parametrize("method", ["view", "reshape"])
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_form_matches_torch_twice_over(source: str, method: str) -> None:
    same(_program(source, method))


def test_view_under_no_grad_and_inference_mode_matches_torch() -> None:
    def program(t: Any) -> Any:
        x = t.arange(12.0).requires_grad_()
        with t.no_grad():
            a = x.view(3, 4)
        with t.inference_mode():
            b = x.view(4, 3)
            i = t.ones(12)
            c = i.view(2, 6)
        d = i.view(6, 2)
        return [
            (a.requires_grad, a.grad_fn, a._base is x),
            (b.requires_grad, b.grad_fn, b._base is x, b.is_inference()),
            (c.is_inference(), c._base is None, c.grad_fn),
            (d.is_inference(), d._base is None, d.grad_fn),
        ]

    same(program)


def test_a_stale_view_raises_its_rebase_error_before_a_view_error() -> None:
    def program(t: Any) -> Any:
        x = t.arange(12.0).requires_grad_().clone()
        with t.no_grad():
            v = x.view(3, 4)
        x.mul_(2)
        return [_outcome(t, v, (12,), {}), _outcome(t, v, (5, 5), {})]

    same(program)


def _slow(x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The parser's binding and the layout rules computed afresh: the path before any shortcut."""
    try:
        overload, a = VIEW.binding._parse(args, kwargs)  # type: ignore[attr-defined]
        if overload == 0:
            return "dtype"
        new = view_shapes.infer_size(a["size"], x.numel())
        strides = view_shapes.view_strides(tuple(x.shape), x.stride(), new)
        if strides is None:
            raise RuntimeError(view_shapes.VIEW_ERROR)
    except (RuntimeError, TypeError) as e:
        return type(e).__name__, str(e)
    return new, strides, x.storage_offset()


def _fast(x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        y = x.view(*args, **kwargs)
    except (RuntimeError, TypeError) as e:
        return type(e).__name__, str(e)
    return tuple(y.shape), y.stride(), y.storage_offset()


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_common_call_and_remembered_geometry_agree_with_the_slow_path(source: str) -> None:
    view_ops._VIEW_GEOMETRY.clear()
    x = SOURCES[source](ownership)
    for rounds in ("cold", "warm"):
        for args, kwargs in FORMS:
            assert _fast(x, args, kwargs) == _slow(x, args, kwargs), (rounds, args, kwargs)


def test_a_float_equal_to_a_remembered_int_still_raises() -> None:
    x = ownership.arange(24.0)
    x.view(4, 6)
    x.view((4, 6))
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        x.view(4.0, 6)
    with pytest.raises(TypeError, match="failed to unpack the object at pos 2"):
        x.view((4, 6.0))


def test_remembered_geometry_keeps_no_tensor_alive_and_stays_bounded() -> None:
    view_ops._VIEW_GEOMETRY.clear()
    x = ownership.arange(24.0)
    assert x.view(ownership.tensor(24)).shape == (24,)
    assert x.view(np.int64(4), 6).shape == (4, 6)
    for key in view_ops._VIEW_GEOMETRY:
        request = key[3]
        sizes = request[0] if len(request) == 1 and isinstance(request[0], tuple) else request
        assert all(type(s) is int for s in sizes), key
    for n in range(1, view_ops._VIEW_GEOMETRY_LIMIT + 10):
        ownership.zeros(n).view(-1, 1)
    assert len(view_ops._VIEW_GEOMETRY) <= view_ops._VIEW_GEOMETRY_LIMIT


@pytest.mark.parametrize("method", ["view", "reshape"])
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_view_made_by_reshape_is_the_view_made_from_the_storage(source: str, method: str) -> None:
    """Where numpy's ``reshape`` makes a view's array (the remembered geometry says when), it is
    the array :func:`ownership.core.layout.strided` makes over the storage buffer with the sizes and
    strides of torch's rules, fact for fact."""
    view_ops._VIEW_GEOMETRY.clear()
    x = SOURCES[source](ownership)
    for rounds in ("cold", "warm"):
        for args, kwargs in FORMS:
            try:
                y = getattr(x, method)(*args, **kwargs)
            except (RuntimeError, TypeError):
                continue
            if y._base is None:  # a reshape that copied
                continue
            as_view = {"size": kwargs["shape"]} if "shape" in kwargs else kwargs
            new, strides, offset = _slow(x, args, as_view)
            made = layout.strided(x._storage.buffer, new, strides, offset)
            assert array_facts(y._data) == array_facts(made), (rounds, args, kwargs)
    if source in ("contiguous", "matrix", "int64", "size_one_dims"):
        assert any(g[2] for g in view_ops._VIEW_GEOMETRY.values()), "no view made by reshape"


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_remembered_geometry_says_whether_the_viewed_tensor_is_contiguous(source: str) -> None:
    """The contiguity a geometry remembers (it names ``reshape``'s node) is the viewed tensor's
    own ``is_contiguous()``, cold and warm, for every size request that fits."""
    view_ops._VIEW_GEOMETRY.clear()
    x = SOURCES[source](ownership)
    for rounds in ("cold", "warm"):
        for args, kwargs in FORMS:
            if kwargs or not all(type(a) in (int, tuple, list) for a in args):
                continue
            try:
                geometry = view_ops.view_geometry(x, args)
            except (RuntimeError, TypeError):  # sizes that do not fit, or not sizes
                continue
            assert geometry[4] == x.is_contiguous(), (rounds, args)
