"""The backward pass's fast paths agree with the general path and with torch.

- The ready order: every node made ready goes through the ready queue; random graphs of leaves
  and ops, their order seen through hooks, are torch's.
- ``sum_to`` with grad mode off (a plain backward's broadcast gradient) sums and views by the
  ops of the table: the same tensor, field by field, as ``ops.sum`` then ``ops.reshape``; a
  hook sees torch's view.
- ``AccumulateGrad`` keeps a fresh gradient nobody else holds as ``.grad`` itself (it is its
  own ``detach()``): ``.grad`` shows what torch's does.
- ``backward()`` of a 0-d loss seeds it with a 0-d array of one, as ``ones_like`` makes it.
- relu's backward mask calls ``np.where`` itself for a few elements: the same bits and layout.
- The formulas' numpy work is quiet (each helper switches numpy's state for its own call):
  inf and NaN gradients compute silently with numpy told to raise, numpy's state is restored
  after a formula that raises, and the user's code (saved-tensor unpack hooks, tensor hooks, a
  custom Function's backward) runs in the user's own numpy state, as under torch.
"""

from __future__ import annotations

import itertools
import random
import warnings
import weakref
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import ownership
from ownership.ops.backward_ops import _masked
from ownership.ops.common import sum_to

from support.differential import same


def _random_graph(t: ModuleType, seed: int) -> list[str]:
    """A random graph of leaves and ops (some leaves used twice); the order in which the
    leaves accumulate and the ops' hooks run."""
    rng = random.Random(seed)
    out: list[str] = []
    names = itertools.count()
    leaves: list[Any] = []

    def leaf() -> Any:
        if leaves and rng.random() < 0.2:  # a leaf used again: its accumulator waits for two
            return rng.choice(leaves)
        i = next(names)
        x = t.ones(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda p, i=i: out.append(f"leaf {i}"))
        leaves.append(x)
        return x

    def build(depth: int) -> Any:
        if depth == 0 or rng.random() < 0.3:
            return leaf()
        parts = [build(depth - 1) for _ in range(rng.choice([1, 2, 2, 2, 3, 4, 5, 7]))]
        if len(parts) == 1:
            y = parts[0].exp()
        elif len(parts) == 2:
            y = parts[0] * parts[1] if rng.random() < 0.5 else parts[0] + parts[1]
        else:
            y = t.stack(parts).sum(0)
        i = next(names)
        y.register_hook(lambda g, i=i: out.append(f"op {i}"))
        return y

    build(5).sum().backward()
    return out


@pytest.mark.parametrize("seed", range(40))
def test_nodes_made_ready_together_run_in_torchs_order(seed: int) -> None:
    same(lambda t: _random_graph(t, seed))


def _mlp_bias_views(t: ModuleType) -> list[Any]:
    """What a hook on each bias sees (a view of the summed gradient), and the ``.grad`` left."""
    seen: list[Any] = []
    x = t.ones(2, 3, 4)
    b1 = t.zeros(4, requires_grad=True)
    b2 = t.zeros(3, 1, requires_grad=True)
    b3 = t.zeros(1, requires_grad=True)
    for b in (b1, b2, b3):
        b.register_hook(
            lambda g: seen.append(
                [g, g.stride(), g._is_view(), tuple(g._base.shape), g._base.stride(), g._version]
            )
        )
    ((x + b1) * (x + b2) * (x - b3)).sum().backward()
    return [seen, [[b.grad, b.grad.stride(), b.grad._is_view()] for b in (b1, b2, b3)]]


def test_a_broadcast_gradient_is_torchs_view_of_its_sum() -> None:
    same(_mlp_bias_views)


SUMS = [  # gradient shape, input shape, layout of the gradient
    ((2, 4), (4,), "C"),
    ((2, 3, 4), (3, 1), "C"),
    ((2, 3, 4), (1, 4), "F"),
    ((5, 3), (5, 1), "F"),
    ((2, 3, 4), (), "C"),
    ((2, 1, 4), (1, 1, 4), "C"),
    ((0, 4), (4,), "C"),
    ((3, 4), (3, 4), "C"),
    ((4, 6), (6,), "T"),
]


def _gradient(shape: tuple[int, ...], order: str, dtype: Any) -> ownership.Tensor:
    arr = np.arange(np.prod(shape), dtype=dtype).reshape(shape) * 0.37 - 1.5
    if order == "F":
        arr = np.asfortranarray(arr)
    if order == "T":  # a transposed view
        return ownership.tensor(arr.T.copy()).t()
    return ownership.tensor(arr) if order == "C" else ownership.Tensor._wrap(arr)


def _fields(t: Any) -> list[Any]:
    base = t._base
    return [
        t._data.tobytes(),
        t.dtype,
        tuple(t.shape),
        t.stride(),
        t._version,
        None if base is None else t._creation_meta,  # a view's only
        t.requires_grad,
        t.grad_fn,
        None if base is None else (tuple(base.shape), base.stride(), base._data.tobytes()),
        t.untyped_storage().nbytes(),
    ]


def test_sum_to_with_an_overflow_is_quiet() -> None:
    g = ownership.tensor(np.full((2, 3), 3e38, dtype=np.float32))
    with ownership.no_grad(), np.errstate(all="raise"):
        out = sum_to(g, (3,))
    assert np.isinf(out._data).all()


def _leaf_grads(t: ModuleType) -> list[Any]:
    """``.grad`` of leaves given a fresh gradient (stolen), a view's (detached), one held by a
    hook (copied), and one accumulated twice."""
    w = t.ones(2, 3, requires_grad=True)
    b = t.zeros(3, requires_grad=True)
    h = t.ones(3, requires_grad=True)
    kept: list[Any] = []
    h.register_hook(lambda g: kept.append(g))
    (w * 2 + b + h).sum().backward()
    grads = [w.grad, b.grad, h.grad]
    facts = [[g, g.stride(), g._version, g._is_view(), g.is_leaf] for g in grads]
    first = w.grad
    (w * 3).sum().backward()
    facts.append([w.grad is first, w.grad, w.grad._version, h.grad is kept[0]])
    return facts


def test_accumulated_gradients_are_torchs() -> None:
    same(_leaf_grads)


def test_a_fresh_gradient_is_its_own_detach_only_when_nobody_could_tell() -> None:
    """``.grad`` is the engine's fresh gradient itself, never a tensor someone could know
    (an attribute, a weak reference, a subclass, a view)."""
    fresh = ownership.Tensor._wrap(np.ones(3, np.float32))
    assert fresh._detached_unseen() is fresh
    named = ownership.Tensor._wrap(np.ones(3, np.float32))
    named.note = "seen"
    watched = ownership.Tensor._wrap(np.ones(3, np.float32))
    ref = weakref.ref(watched)
    base = ownership.Tensor._wrap(np.ones((2, 3), np.float32))
    for t in (named, watched, base[0], ownership.nn.Parameter(fresh)):
        out = t._detached_unseen()
        assert out is not t
        assert out._data is t._data and not out._is_view() and type(out) is ownership.Tensor
    assert ref() is watched


def _seeds(t: ModuleType) -> list[Any]:
    """The gradient ``backward()`` seeds a one-element loss with, seen by a hook."""
    seen: list[Any] = []
    for shape in [(), (1,), (1, 1)]:
        for dtype in [t.float32, t.float64]:
            x = t.ones(shape, dtype=dtype, requires_grad=True)
            y = x * 2
            y.register_hook(lambda g: seen.append([g, g.stride(), g._version, g.is_contiguous()]))
            y.backward()
    return seen


def test_a_one_element_loss_is_seeded_as_torchs() -> None:
    same(_seeds)


@pytest.mark.parametrize("size", [1, 30, 256, 257, 600])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_backward_mask_is_np_where_on_both_sides_of_its_shortcut(
    size: int, dtype: type
) -> None:
    """relu's backward mask (``_masked``) calls ``np.where`` itself for a few C-ordered
    elements and masks bits for more: the same bits and layout either way, inf, nan, -0.0
    and denormals included."""
    rng = np.random.default_rng(size)
    values = rng.standard_normal(size).astype(dtype)
    values[: min(size, 6)] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45][: min(size, 6)]
    result = np.maximum(values[::-1], 0).copy()
    drop = result <= 0
    bits = {4: np.uint32, 8: np.uint64}[values.itemsize]
    for where_not, mask in ((True, drop), (False, ~drop)):
        got = _masked(values, mask, where_not=where_not)
        assert got.dtype == values.dtype
        assert got.strides == values.strides
        np.testing.assert_array_equal(got.view(bits), np.where(drop, dtype(0), values).view(bits))


def test_relu_backward_is_torchs_for_few_and_many_elements() -> None:
    def program(t: ModuleType) -> list[Any]:
        out = []
        for n in (3, 300):
            x = t.tensor([[-1.0, 0.0, -0.0, 2.0, float("nan")] * n], requires_grad=True)
            y = t.relu(x)
            (y * t.tensor([[-3.0, float("inf"), 1.0, -0.0, 2.0] * n])).sum().backward()
            out.append([x.grad, x.grad.stride()])
        return out

    same(program)


def test_a_fresh_gradient_shows_every_field_its_detach_would() -> None:
    """Slot by slot (the storage and counter made when first read, equal where made), a fresh
    result kept as its own ``detach()`` is what ``detach()`` makes: a slot added to tensors
    that ``detach()`` sets otherwise than a fresh result has it shows here."""
    fresh = ownership.Tensor._wrap(np.arange(6, dtype=np.float32).reshape(2, 3))
    kept = fresh._detached_unseen()
    made = fresh.detach()
    assert kept is fresh and made is not fresh
    lazy = {"_lazy_storage", "_lazy_counter", "__dict__", "__weakref__"}
    for cls in type(made).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in lazy:
                # (a view's only fields are unset on both: "unset")
                mine, its = getattr(kept, name, "unset"), getattr(made, name, "unset")
                assert mine is its or (type(mine) is not np.ndarray and mine == its), name
    assert kept._storage is made._storage and kept._version_counter is made._version_counter
    assert vars(kept) == vars(made) == {}


@pytest.mark.parametrize("geometry", ["reshaped", "transposed", "empty", "offset"])
def test_a_view_gradient_is_kept_as_its_detach(geometry: str) -> None:
    """A ``Tensor`` view given to ``_detached_unseen`` gives what its ``detach()`` makes, slot
    by slot: a new non-view alias over the view's memory, storage and counter."""
    base = ownership.Tensor._wrap(np.arange(12, dtype=np.float32).reshape(3, 4))
    views = {
        "reshaped": lambda: base.view(12),
        "transposed": lambda: base.t(),
        "empty": lambda: base[1:1],
        "offset": lambda: base[1:, 2:],
    }
    view = views[geometry]()
    kept, made = view._detached_unseen(), view.detach()
    assert kept is not view and kept is not made
    for cls in type(made).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in ("_data", "__dict__", "__weakref__"):
                mine, its = getattr(kept, name, "unset"), getattr(made, name, "unset")
                assert mine is its or mine == its, name
    assert (kept._data.shape, kept._data.strides, kept._data.tolist()) == (
        made._data.shape,
        made._data.strides,
        made._data.tolist(),
    )
    assert kept.data_ptr() == made.data_ptr() and kept.stride() == made.stride()


def _overflowing_step(t: ModuleType) -> list[Any]:
    """An MLP step whose gradients overflow (inf, then nan), with numpy told to raise and
    warnings made errors; numpy's state afterwards."""
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        x = t.tensor([[1.0e-30, 2.0e-30]])  # finite logits, then a saturated softmax
        w1 = t.tensor([[1.0, 0.0], [0.0, 1.0]], requires_grad=True)
        b1 = t.tensor([0.0, 0.0], requires_grad=True)
        w2 = t.tensor([[3.0e38, -3.0e38], [3.0e38, -3.0e38]], requires_grad=True)
        h = t.nn.functional.relu(x @ w1 + b1)
        loss = t.nn.functional.cross_entropy(h @ w2, t.tensor([1]))  # d h overflows: inf
        loss.backward()
        state = np.geterr()
    return [loss, w1.grad, b1.grad, w2.grad, state, np.geterr()]


def test_formulas_run_quiet() -> None:
    same(_overflowing_step)


def _state_after_a_refusal(t: ModuleType) -> list[Any]:
    """A hook gives mm's formula a gradient of the wrong shape: mm's error, and numpy's state
    (raise on overflow) as it was before ``backward()``."""
    with np.errstate(over="raise"):
        a = t.ones(2, 3, requires_grad=True)
        out = a @ t.ones(3, 4)
        out.register_hook(lambda g: t.ones(4, 4))
        try:
            out.sum().backward()
            refused = None
        except RuntimeError as e:
            refused = str(e)
        return [refused, np.geterr()]


def test_numpy_state_is_restored_after_a_formula_raises() -> None:
    same(_state_after_a_refusal)


def _user_code_states(t: ModuleType) -> list[Any]:
    """numpy's state as the user's code sees it during ``backward()``: a saved-tensor unpack
    hook, a tensor hook, a custom Function's backward, a post-accumulate hook."""
    seen: list[Any] = []

    class Double(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            seen.append(("function", np.geterr()["over"]))
            return g * 2

    def unpack(x: Any) -> Any:
        seen.append(("unpack", np.geterr()["over"]))
        return x

    with np.errstate(over="raise", invalid="warn"):
        w = t.ones(3, requires_grad=True)
        w.register_post_accumulate_grad_hook(lambda p: seen.append(("post", np.geterr()["over"])))
        with t.autograd.graph.saved_tensors_hooks(lambda x: x, unpack):
            y = Double.apply(w).exp()
        y.register_hook(lambda g: seen.append(("hook", np.geterr()["over"])))
        y.sum().backward()
    return [seen, w.grad]


def test_user_code_runs_in_the_users_numpy_state() -> None:
    same(_user_code_states)
