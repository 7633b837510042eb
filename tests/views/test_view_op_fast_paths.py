"""The view ops' fast paths agree with the paths they skip and with torch: the remembered
geometry of ``t``, ``transpose``, ``permute``, ``expand``, ``unsqueeze``, ``squeeze``, ``select``
and slicing (cold and warm), the arrays numpy makes for them (``arr.T``, ``swapaxes``, basic
indexing), the methods' Python-int calls that skip the parser, and ``t[key]`` for keys of ints
and slices that skip the key checks: shape, strides, offset, base, ``grad_fn`` and its saved
values, gradients, and every error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ownership
from ownership.core import layout
from ownership.ops import view_geometry, views

from support.arrays import array_facts
from support.differential import same

SOURCES = {
    "leaf_matrix": lambda t: t.arange(12.0).view(3, 4).detach().requires_grad_(),
    "matrix": lambda t: (t.arange(12.0).requires_grad_() * 1).view(3, 4),
    "transposed": lambda t: t.arange(12.0).requires_grad_().view(3, 4).t(),
    "stepped": lambda t: t.arange(48.0).requires_grad_().view(4, 12)[:, 1::3],
    "expanded": lambda t: t.arange(3.0).requires_grad_().view(3, 1).expand(3, 4),
    "size_one_dims": lambda t: t.arange(12.0).requires_grad_().view(3, 1, 4, 1),
    "three_d": lambda t: t.arange(24.0).requires_grad_().view(2, 3, 4),
    "vector": lambda t: t.arange(5.0).requires_grad_(),
    "scalar": lambda t: t.tensor(3.0, requires_grad=True) * 1,
    "int64": lambda t: t.arange(12).view(3, 4),
    "float64_sliced": lambda t: t.arange(24, dtype=t.float64).view(4, 6)[1:, ::2],
    "empty": lambda t: t.zeros(0, 4),
    "empty_view": lambda t: t.zeros(3, 4)[:, 4:],
}

# every fast-pathed call, with calls that torch refuses and calls that take the slow paths
CALLS: dict[str, Any] = {
    "t()": lambda x: x.t(),
    "T": lambda x: x.permute(*range(x.dim() - 1, -1, -1)),
    "transpose(0, -1)": lambda x: x.transpose(0, -1),
    "transpose(-1, -2)": lambda x: x.transpose(-1, -2),
    "transpose(0, 5)": lambda x: x.transpose(0, 5),
    "transpose(dim0=0, dim1=-1)": lambda x: x.transpose(dim0=0, dim1=-1),
    "transpose(np.int64)": lambda x: x.transpose(np.int64(0), -1),
    "swapdims(-1, 0)": lambda x: x.swapdims(-1, 0),
    "permute(1, 0)": lambda x: x.permute(1, 0),
    "permute((1, 0))": lambda x: x.permute((1, 0)),
    "permute([1, 0])": lambda x: x.permute([1, 0]),
    "permute(Size)": lambda x: x.permute(type(x.shape)(range(x.dim() - 1, -1, -1))),
    "permute(0, 0)": lambda x: x.permute(0, 0),
    "expand([2, *shape])": lambda x: x.expand([2, *x.shape]),
    "expand(2, *shape)": lambda x: x.expand(2, *x.shape),
    "expand((2, *shape))": lambda x: x.expand((2, *x.shape)),
    "expand(-1s)": lambda x: x.expand(*([-1] * x.dim())),
    "expand(2, 3, 4)": lambda x: x.expand(2, 3, 4),
    "expand(7, 7)": lambda x: x.expand(7, 7),
    "expand(2.0, 3, 4)": lambda x: x.expand(2.0, 3, 4),
    "expand_as": lambda x: x.expand_as(x.unsqueeze(0).expand(2, *x.shape)),
    "unsqueeze(0)": lambda x: x.unsqueeze(0),
    "unsqueeze(-1)": lambda x: x.unsqueeze(-1),
    "unsqueeze(9)": lambda x: x.unsqueeze(9),
    "unsqueeze(dim=1)": lambda x: x.unsqueeze(dim=1),
    "squeeze()": lambda x: x.squeeze(),
    "squeeze(0)": lambda x: x.squeeze(0),
    "squeeze(-1)": lambda x: x.squeeze(-1),
    "squeeze(1)": lambda x: x.squeeze(1),
    "squeeze(5)": lambda x: x.squeeze(5),
    "squeeze((0, 1))": lambda x: x.squeeze((0, 1)),
    "select(0, 1)": lambda x: x.select(0, 1),
    "select(-1, -1)": lambda x: x.select(-1, -1),
    "select(0, 9)": lambda x: x.select(0, 9),
    "select(dim=0, index=0)": lambda x: x.select(dim=0, index=0),
    "narrow(0, 1, 1)": lambda x: x.narrow(0, 1, 1),
    "x[1]": lambda x: x[1],
    "x[-1]": lambda x: x[-1],
    "x[9]": lambda x: x[9],
    "x[-9]": lambda x: x[-9],
    "x[0, 1]": lambda x: x[0, 1],
    "x[0, -1]": lambda x: x[0, -1],
    "x[:, 1]": lambda x: x[:, 1],
    "x[:, 9]": lambda x: x[:, 9],
    "x[1:3]": lambda x: x[1:3],
    "x[::2]": lambda x: x[::2],
    "x[-2:]": lambda x: x[-2:],
    "x[:, -1:]": lambda x: x[:, -1:],
    "x[2:1]": lambda x: x[2:1],
    "x[1:100]": lambda x: x[1:100],
    "x[:]": lambda x: x[:],
    "x[:, :]": lambda x: x[:, :],
    "x[()]": lambda x: x[()],
    "x[:, ::-1]": lambda x: x[:, ::-1],
    "x[::0]": lambda x: x[::0],
    "x[0, 0, 0, 0, 0]": lambda x: x[0, 0, 0, 0, 0],
    "x[np.int64(1)]": lambda x: x[np.int64(1)],
    "x[1, None]": lambda x: x[1, None],
    "x[..., 0]": lambda x: x[..., 0],
}

SAVED = ("dim0", "dim1", "dims", "dim", "index", "start", "end", "step", "self_sym_sizes")


def _outcome(x: Any, call: Any, saved: bool = False) -> Any:
    """What a learner sees of ``call(x)``: the error, or the view's facts (``saved``: and its
    node's saved values, which the engine keeps normalized where torch keeps some as given)."""
    try:
        y = call(x)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        return type(e).__name__, str(e)
    fn = y.grad_fn
    facts = (
        tuple(y.shape),
        y.stride(),
        y.storage_offset(),
        y._base is (x if x._base is None else x._base),
        y.requires_grad,
        None if fn is None else fn.name(),
        y,
    )
    if not saved or fn is None:
        return facts
    return *facts, {k: getattr(fn, "_saved_" + k) for k in SAVED if hasattr(fn, "_saved_" + k)}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_each_view_op_matches_torch_cold_and_warm_with_its_gradients(source: str) -> None:
    def program(t: Any) -> Any:
        out = []
        for _ in range(2):  # the second round finds every geometry remembered
            x = SOURCES[source](t)
            out += [_outcome(x, call) for call in CALLS.values()]
            if x.requires_grad:  # every view that records, weighed, back to its leaf
                total = 0
                for k, call in enumerate(CALLS.values()):
                    try:
                        y = call(x)
                    except (RuntimeError, IndexError, ValueError, TypeError):
                        continue
                    total = total + (y * (k + 1)).sum()
                leaf = x if x.is_leaf else x._base
                grad = t.autograd.grad(total, leaf)[0]
                out.append(grad.clone())  # its version is an engine artefact
        return out

    same(program)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_an_array_numpy_makes_is_the_array_made_from_the_storage(source: str) -> None:
    """Where numpy's own transpose, swap or basic index makes a view's array, it is the array
    :func:`ownership.core.layout.strided` makes over the storage with the view's sizes, strides and
    offset, fact for fact, cold and warm."""
    view_geometry._OP_GEOMETRY.clear()
    x = SOURCES[source](ownership)
    for rounds in ("cold", "warm"):
        for name, call in CALLS.items():
            try:
                y = call(x)
            except (RuntimeError, IndexError, ValueError, TypeError):
                continue
            if y._base is None:  # a copy (an advanced index), or ``x`` itself
                continue
            made = layout.strided(x._storage.buffer, y.shape, y.stride(), y.storage_offset())
            assert array_facts(y._data, with_base=False) == array_facts(made, with_base=False), (
                rounds,
                name,
            )


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_remembered_geometry_is_the_geometry_computed_afresh(source: str) -> None:
    """A warm call gives what a cold one gives, the cache cleared before each cold call."""
    x = SOURCES[source](ownership)
    for name, call in CALLS.items():
        view_geometry._OP_GEOMETRY.clear()
        cold = _outcome(x, call, saved=True)
        warm = _outcome(x, call, saved=True)
        if isinstance(cold[0], str):  # an error
            assert warm == cold, name
        else:  # the facts and saved values, and the elements of the new view
            assert warm[:6] + warm[7:] == cold[:6] + cold[7:], name
            assert np.array_equal(warm[6]._data, cold[6]._data), name


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.swapdims(True, 0),
        lambda x: x.swapaxes(1.0, 0),
        lambda x: views.unsqueeze(x, True),
        lambda x: views.select(x, True, 1.0),
        lambda x: views.transpose(x, 1.0, 0),
    ],
    ids=[
        "swapdims(True, 0)",
        "swapaxes(1.0, 0)",
        "unsqueeze(True)",
        "select(True, 1.0)",
        "transpose(1.0, 0)",
    ],
)
def test_a_bool_or_float_equal_to_a_remembered_int_is_not_looked_up(call: Any) -> None:
    """``True == 1`` and ``1.0 == 1``: a request that is not of exact ints is computed, never
    found, so what it does (its saved values' types, its error) does not depend on an earlier
    call with ints."""
    x = ownership.arange(12.0).requires_grad_().view(3, 4)
    view_geometry._OP_GEOMETRY.clear()
    cold = _saved_types(x, call)
    for ints in (lambda x: x.swapdims(1, 0), lambda x: x.unsqueeze(1), lambda x: x.select(1, 1)):
        ints(x)
    assert _saved_types(x, call) == cold


def _saved_types(x: Any, call: Any) -> Any:
    try:
        fn = call(x).grad_fn
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        return type(e).__name__, str(e)
    return {k: type(getattr(fn, "_saved_" + k)) for k in SAVED if hasattr(fn, "_saved_" + k)}


def test_remembered_geometries_keep_only_ints_and_stay_bounded() -> None:
    view_geometry._OP_GEOMETRY.clear()
    x = ownership.arange(12.0).view(3, 4)
    x.transpose(np.int64(0), 1)
    x.expand(ownership.Size((2, 3, 4)))
    x.select(0, ownership.tensor(1))
    x.squeeze([0])
    for key in view_geometry._OP_GEOMETRY:
        assert all(type(a) is int for a in key[4]), key
    for n in range(1, view_geometry._VIEW_GEOMETRY_LIMIT + 10):
        ownership.zeros(n).unsqueeze(0)
    assert len(view_geometry._OP_GEOMETRY) <= view_geometry._VIEW_GEOMETRY_LIMIT
