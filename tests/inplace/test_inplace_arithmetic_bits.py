"""``add_``, ``sub_`` and ``mul_`` write torch's bits (signed zeros, subnormals, inf and nan
among the values), recorded or not (the optimizer's update under no_grad), and make torch's
checks in torch's order."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("op", "other", "alpha"), CASES)
def test_the_write_agrees_with_torch(op: str, other: Any, alpha: Any, dtype: str) -> None:
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


def test_a_recorded_write_keeps_the_graph_and_the_saved_value() -> None:
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
def test_the_write_makes_the_checks_in_order(program: Any) -> None:
    same(program)


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
def test_an_unrecorded_write_agrees_with_torch(program: Any) -> None:
    same(program)
