"""The direct in-place write: ``add_``, ``sub_`` and ``mul_`` computed straight into the written
tensor's array (``ownership.ops.inplace.direct_write``) agree bit for bit with the result computed
into a new array and copied in (the general path), and with torch; its checks keep their order."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ownership
from ownership import observers
from ownership.ops import inplace
from ownership.ops.common import needs_grad_with

from support.differential import same

SPECIAL = [0.0, -0.0, 1.0, -1.5, 1e-40, -1e-45, 3.4e38, float("inf"), float("-inf"), float("nan")]


def _values(dtype: Any, n: int = 40, near_max: bool = True) -> np.ndarray:
    """Random values of every magnitude, with the special ones (signed zeros, subnormals, inf,
    nan and, if ``near_max``, a float32 near its largest) among them."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    special = SPECIAL if near_max else [v for v in SPECIAL if v != 3.4e38]
    x[: len(special)] = special
    rng.shuffle(x)
    return x.astype(dtype)


def _bits(arr: np.ndarray) -> np.ndarray:
    """The array's bytes, so that -0.0 differs from 0.0 and every nan payload counts."""
    return arr.view(f"u{arr.itemsize}")


# (op, other, alpha): other "t" is a tensor of the same dtype, "self" the written tensor itself
CASES = [
    ("add_", "t", 1),
    ("add_", "t", 0.1),
    ("add_", "t", -0.3),
    ("add_", 0.1, 1),
    ("add_", -2.5, 0.7),
    ("add_", "self", 1),
    ("add_", "self", -1.1),
    ("sub_", "t", 1),
    ("sub_", "t", 0.1),
    ("sub_", 1e-3, 1),
    ("sub_", 0.25, -3.3),
    ("sub_", "self", 1),
    ("mul_", "t", 1),
    ("mul_", 0.9, 1),
    ("mul_", -1e30, 1),
    ("mul_", "self", 1),
]
DTYPES = ["float32", "float64"]


def _run(op: str, other: Any, alpha: Any, dtype: str) -> tuple[np.ndarray, int]:
    a = ownership.tensor(_values(dtype))
    b = {"t": ownership.tensor(_values(dtype)[::-1].copy()), "self": a}.get(other, other)
    kwargs = {} if op == "mul_" else {"alpha": alpha}
    assert getattr(a, op)(b, **kwargs) is a
    return a._data.copy(), a._version


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("op", "other", "alpha"), CASES)
def test_the_direct_write_equals_the_general_path_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch, op: str, other: Any, alpha: Any, dtype: str
) -> None:
    chosen: list[bool] = []
    decide = inplace.direct_write

    def spy(*args: Any) -> bool:
        chosen.append(decide(*args))
        return chosen[-1]

    monkeypatch.setattr(inplace, "direct_write", spy)
    monkeypatch.setattr(inplace, "write_unrecorded", lambda *args: None)  # the contract's path
    fast, fast_version = _run(op, other, alpha, dtype)
    assert chosen == [True]  # the case is one the direct write takes
    monkeypatch.setattr(inplace, "direct_write", lambda *args: False)
    slow, slow_version = _run(op, other, alpha, dtype)
    assert fast.dtype == slow.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(_bits(fast), _bits(slow))
    assert fast_version == slow_version == 1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("op", "other", "alpha"), CASES)
def test_the_direct_write_agrees_with_torch(op: str, other: Any, alpha: Any, dtype: str) -> None:
    # no value near float32's largest: torch fuses ``a + alpha * b`` (one rounding), which stays
    # finite where two roundings overflow; the general path rounds twice as well
    def program(t: Any) -> Any:
        dt = getattr(t, dtype)
        values = _values(dtype, near_max=False)
        a = t.tensor(values.tolist(), dtype=dt)
        b = {"t": t.tensor(values[::-1].tolist(), dtype=dt), "self": a}.get(other, other)
        kwargs = {} if op == "mul_" else {"alpha": alpha}
        getattr(a, op)(b, **kwargs)
        return a, a._version

    same(program)


def test_a_recorded_direct_write_keeps_the_graph_and_the_saved_value() -> None:
    def program(t: Any) -> Any:
        w = t.tensor([1.5, -2.0, 0.25], requires_grad=True)
        b = t.tensor([2.0, 3.0, -4.0], requires_grad=True)
        a = w * 1.0
        a.mul_(b)  # saves a's value before the write
        a.add_(b, alpha=0.5)
        a.sub_(0.75)
        a.sum().backward()
        return a, a._version, a.grad_fn, w.grad, b.grad

    same(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda t: t.ones(3, requires_grad=True).add_(1.0),  # leaf, before anything
        lambda t: t.zeros(3).expand(2, 3).add_(t.ones(2, 3)),  # internal overlap
        lambda t: (lambda x: x.sub_(x.t()))(t.ones(2, 2)),  # partial overlap
        lambda t: t.ones(2, 3).mul_(t.ones(3, 2)),  # shapes
        lambda t: t.ones(3, 3, requires_grad=True)[0].add_(t.ones(3), alpha=0.5),  # view of leaf
    ],
)
def test_the_direct_write_makes_the_checks_in_order(program: Any) -> None:
    same(program)


def test_the_direct_write_is_taken_only_where_exact() -> None:
    t = ownership
    f32 = t.ones(3)
    read_only = t.ones(3)
    read_only._data.setflags(write=False)
    taken = [
        (f32, t.ones(3), 1),
        (f32, t.ones(3), -0.1),
        (f32, 2.5, 1),
        (t.ones(3, dtype=t.float64), t.zeros(3, dtype=t.float64), 0.5),
    ]
    general = [
        (t.ones(3, dtype=t.int64), t.ones(3, dtype=t.int64), 1),  # integers
        (f32, t.ones(3, dtype=t.float64), 1),  # another dtype
        (f32, t.ones(1), 1),  # broadcast
        (f32, 2, 1),  # a Python int
        (f32, t.ones(3), 2),  # an int alpha other than 1
        (f32, np.float64(0.5), 1),  # a numpy number
        (f32, t.ones(3), True),
        (read_only, t.ones(3), 1),  # as over the memory of bytes
    ]
    assert all(inplace.direct_write(a, b, alpha) for a, b, alpha in taken)
    assert not any(inplace.direct_write(a, b, alpha) for a, b, alpha in general)


def _observed_run(op: str, other: Any, alpha: Any, dtype: str) -> tuple[Any, ...]:
    """``_run`` under no_grad on a tensor that requires grad (the optimizer's update), with a
    write observer: the values, the version and what the observer was told."""
    told: list[tuple[int, str]] = []
    a = ownership.tensor(_values(dtype), requires_grad=True)
    b = {"t": ownership.tensor(_values(dtype)[::-1].copy()), "self": a}.get(other, other)
    kwargs = {} if op == "mul_" else {"alpha": alpha}
    observers.WRITES.append(lambda t, name: told.append((id(t), name)))
    try:
        with ownership.no_grad():
            assert getattr(a, op)(b, **kwargs) is a
    finally:
        observers.WRITES.pop()
    assert told and told[0][0] == id(a)
    return a._data.copy(), a._version, [name for _, name in told], a.grad_fn, a.is_leaf


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("op", "other", "alpha"), CASES)
def test_the_unrecorded_write_equals_the_general_path_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch, op: str, other: Any, alpha: Any, dtype: str
) -> None:
    """``add_``/``sub_``/``mul_`` that record nothing skip the general contract
    (``inplace.write_unrecorded``): the same bits, version, observers and history."""
    chosen: list[bool] = []
    write = inplace.write_unrecorded

    def spy(*args: Any) -> Any:
        done = write(*args)
        chosen.append(done is not None)
        return done

    monkeypatch.setattr(inplace, "write_unrecorded", spy)
    fast = _observed_run(op, other, alpha, dtype)
    assert chosen == [True]
    monkeypatch.setattr(inplace, "write_unrecorded", lambda *args: None)
    slow = _observed_run(op, other, alpha, dtype)
    np.testing.assert_array_equal(_bits(fast[0]), _bits(slow[0]))
    assert fast[1:] == slow[1:] == (1, [op.replace("_", "").title() + "Backward0"], None, True)


def _written_unrecorded(a: Any, b: Any, alpha: Any) -> bool:
    """Whether ``inplace.write_unrecorded`` writes ``a.sub_(b, alpha=alpha)`` (into a copy of
    ``a``, ``b`` the copy itself where it was ``a``), leaving ``a`` as it was."""
    copy = ownership.tensor(a._data.copy(), requires_grad=a.requires_grad)
    copy._data.setflags(write=a._data.flags.writeable)
    done = inplace.write_unrecorded(copy, copy if b is a else b, alpha, np.subtract, "SubBackward0")
    assert done is None or done is copy
    return done is not None


def test_the_unrecorded_write_is_taken_only_where_nothing_is_recorded() -> None:
    """``write_unrecorded`` asks :func:`~ownership.ops.inplace.direct_write`'s conditions on the
    arrays it reads: it writes exactly where nothing is recorded and ``direct_write`` allows."""
    t = ownership
    leaf = t.ones(3, requires_grad=True)
    plain = t.ones(3)
    read_only = t.ones(3)
    read_only._data.setflags(write=False)
    cases = [
        (plain, t.ones(3), 1),
        (plain, t.ones(3), -0.1),
        (plain, t.ones(3), 1.0),
        (plain, 0.5, -0.1),
        (plain, 2.5, 1),
        (plain, plain, 1),
        (t.ones(3, dtype=t.float64), t.zeros(3, dtype=t.float64), 0.5),
        (t.ones(3, dtype=t.int64), t.ones(3, dtype=t.int64), 1),  # integers
        (plain, t.ones(3, dtype=t.float64), 1),  # another dtype
        (plain, t.ones(1), 1),  # broadcast
        (plain, 2, 1),  # a Python int
        (plain, t.ones(3), 2),  # an int alpha other than 1
        (plain, np.float64(0.5), 1),  # a numpy number
        (plain, t.ones(3), True),
        (plain, t.ones(3), np.float64(0.5)),
        (read_only, t.ones(3), 1),  # as over the memory of bytes
        (leaf * 1.0, 0.5, 1),  # recorded
        (plain, leaf, 1),  # recorded: other requires grad
    ]
    for grad in (True, False):
        with t.set_grad_enabled(grad):
            for a, b, alpha in cases:
                expected = not needs_grad_with(a, b) and inplace.direct_write(a, b, alpha)
                assert _written_unrecorded(a, b, alpha) == expected, (a, b, alpha, grad)
    with t.no_grad():
        assert _written_unrecorded(leaf, leaf.detach() * 2, 0.1)
        assert _written_unrecorded(plain, leaf, 1)
        assert not _written_unrecorded(leaf, 2, 1)  # a Python int: general path
    assert not _written_unrecorded(leaf * 1.0, 0.5, 1)


def _update(t: Any) -> Any:
    """The optimizer's update as a training loop writes it, then as SGD writes it."""
    p = t.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], requires_grad=True)
    (p * p).sum().backward()
    with t.no_grad():
        p -= 0.1 * p.grad
        p.add_(p.grad, alpha=-0.05)
        p.grad.mul_(0.9).add_(p, alpha=0.1)  # SGD's momentum buffer
        p *= p.grad
    return p, p._version, p.grad, p.grad._version, p.grad_fn, p.is_leaf


@pytest.mark.parametrize(
    "program",
    [
        _update,
        # the checks that remain: overlap inside the written tensor, then with the other operand
        lambda t: t.zeros(3).expand(2, 3).sub_(t.ones(2, 3)),
        lambda t: (lambda x: x.add_(x.t()))(t.ones(2, 2)),
        lambda t: (lambda x: x[1:].sub_(x[:-1]))(t.arange(4.0)),
        lambda t: (lambda x: x[:, 1:].mul_(x[:, :-1].contiguous().t().t()))(t.ones(2, 3)),
        lambda t: (lambda x: x[1:].mul_(x[:-1]))(t.arange(4.0)),
        lambda t: (lambda x: (x.mul_(x.view(4)), x._version))(t.arange(4.0)),
        # interleaved views: their memory spans overlap, no element does (no refusal)
        lambda t: (lambda x: (x[::2].sub_(x[1::2]), x, x._version))(t.arange(6.0)),
        lambda t: (lambda x: (x[:2].add_(x[2:], alpha=0.5), x))(t.arange(4.0)),
        # aliases over the same memory (one array, or two over one buffer): a full overlap
        lambda t: (lambda x: (x.sub_(x.detach()), x._version))(t.arange(4.0)),
        lambda t: (lambda x: (x.add_(x.data, alpha=0.5), x._version))(t.arange(4.0)),
        lambda t: (lambda a: t.from_numpy(a).mul_(t.from_numpy(a)))(np.arange(4.0)),
    ],
)
def test_the_unrecorded_write_agrees_with_torch(program: Any) -> None:
    same(program)


def test_two_owners_never_share_memory() -> None:
    """``inplace.write_unrecorded`` asks ``np.may_share_memory`` only when the two arrays are
    one, or one of them does not own its memory: two distinct arrays that each own theirs never
    share any (two allocations), as numpy answers for every such pair."""
    owner = np.arange(12.0)
    other = np.arange(12.0)
    arrays = [
        owner,
        other,
        owner[1:],
        owner[::2],
        owner.reshape(3, 4).T,
        np.frombuffer(owner, dtype=np.float64),
        np.frombuffer(other.tobytes(), dtype=np.float64),
        np.ones((3, 4)),
        owner.copy(),
    ]
    owners = 0
    for a in arrays:
        for b in arrays:
            if a is not b and a.flags.owndata and b.flags.owndata:
                owners += 1
                assert not np.may_share_memory(a, b)
    assert owners >= 6
