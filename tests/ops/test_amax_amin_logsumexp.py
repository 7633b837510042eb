"""``amax``, ``amin`` and ``logsumexp``: torch's values and dtypes over lists of dims, its
refusals, nodes and saved values, gradients (``amax``'s shared evenly among ties, NaN included)
and second order gradients. ``logsumexp`` computes as torch does (max subtracted first), so large
and infinite values give torch's results."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same
from support.gradients import same_node_and_gradients, second_order

INF, NAN = float("inf"), float("nan")


def _x(t: Any) -> Any:
    return t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])


FORWARD: dict[str, Any] = {
    "amax": lambda t: _x(t).amax(),
    "amax 1": lambda t: _x(t).amax(1),
    "amax keepdim": lambda t: _x(t).amax(-1, True),
    "amax both": lambda t: _x(t).amax(dim=(0, 1)),
    "amax empty list": lambda t: _x(t).amax([]),
    "amax None": lambda t: _x(t).amax(None),
    "amin 0 keepdim": lambda t: _x(t).amin(0, keepdim=True),
    "torch.amax": lambda t: t.amax(_x(t), 1),
    "torch.amin": lambda t: t.amin(_x(t)),
    "amax int64": lambda t: t.tensor([1, 5, 2]).amax(),
    "amin int32": lambda t: t.tensor([[1, 5], [-2, 0]], dtype=t.int32).amin(0),
    "amax bool": lambda t: t.tensor([True, False]).amax(),
    "amax 0-d": lambda t: t.tensor(2.0).amax(0),
    "amax nan": lambda t: t.tensor([1.0, NAN, 2.0]).amax(),
    "amin nan dim": lambda t: t.tensor([[1.0, NAN], [2.0, 0.0]]).amin(1),
    "amax empty rows": lambda t: t.zeros(0, 3).amax(1),
    "amin empty keepdim": lambda t: t.zeros(0, 3).amin(1, True),
    "amax 3-d": lambda t: t.arange(24.0).reshape(2, 3, 4).amax((0, 2)),
    "logsumexp 1": lambda t: _x(t).logsumexp(1),
    "logsumexp keepdim": lambda t: _x(t).logsumexp((0, 1), True),
    "logsumexp empty list keepdim": lambda t: _x(t).logsumexp([], keepdim=True),
    "torch.logsumexp": lambda t: t.logsumexp(_x(t), -2),
    "logsumexp float64": lambda t: _x(t).double().logsumexp(1),
    "logsumexp int64": lambda t: t.tensor([1, 2, 3]).logsumexp(0),
    "logsumexp bool": lambda t: t.tensor([True]).logsumexp(0),
    "logsumexp empty": lambda t: t.zeros(0, 3).logsumexp(0),
    "logsumexp empty rows": lambda t: t.zeros(0, 3).logsumexp(1),
    "logsumexp empty all": lambda t: t.zeros(2, 0).logsumexp([]),
    "logsumexp inf": lambda t: t.tensor([INF, 1.0]).logsumexp(0),
    "logsumexp -inf": lambda t: t.tensor([-INF, -INF]).logsumexp(0),
    "logsumexp nan": lambda t: t.tensor([NAN, 1.0]).logsumexp(0),
    "logsumexp large": lambda t: t.tensor([1000.0, 1000.0]).logsumexp(0),
    "logsumexp small": lambda t: t.tensor([[-1000.0, -1001.0]]).logsumexp(1),
    "logsumexp 0-d": lambda t: t.tensor(2.0).logsumexp(0),
    "logsumexp 0-d empty list": lambda t: t.tensor(2.0).logsumexp([]),
    "logsumexp 3-d": lambda t: t.arange(24.0).reshape(2, 3, 4).logsumexp((2, 0)),
}


@pytest.mark.parametrize("form", FORWARD)
def test_values_and_dtypes_are_torchs(form: str) -> None:
    same(lambda t: FORWARD[form](t))


REFUSALS: dict[str, Any] = {
    "amax of nothing": lambda t: t.zeros(0, 3).amax(),
    "amax of nothing, empty list": lambda t: t.zeros(0, 3).amax([]),
    "amax over an empty dim": lambda t: t.zeros(0, 3).amax([0, 1]),
    "amin over an empty dim": lambda t: t.zeros(0, 3).amin(0),
    "amax over an empty dim -1": lambda t: t.zeros(2, 0).amax(-1),
    "amin over an empty dim -2": lambda t: t.zeros(0, 2).amin(-2, keepdim=True),
    "amax over dims -1, 0, the first empty": lambda t: t.zeros(2, 0).amax((0, -1)),
    "amax over dims 1, -2, both empty": lambda t: t.zeros(0, 0).amax([1, -2]),
    "amax dim twice": lambda t: _x(t).amax((1, 1)),
    "amax 0-d dim twice": lambda t: t.tensor(3.0).amax([0, 0]),
    "amax dim": lambda t: _x(t).amax(3),
    "amin 0-d dim": lambda t: t.tensor(3.0).amin(1),
    "logsumexp empty list": lambda t: _x(t).logsumexp([]),
    "logsumexp 1-d empty list": lambda t: t.arange(3.0).logsumexp([]),
    "logsumexp dim": lambda t: _x(t).logsumexp(2),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t))


WRONG_CALLS: dict[str, Any] = {
    "amax str": lambda t: _x(t).amax("a"),
    "amax keepdim int": lambda t: _x(t).amax(1, keepdim=2),
    "amax unknown keyword": lambda t: _x(t).amax(foo=1),
    "torch.amin str": lambda t: t.amin(_x(t), "a"),
    "logsumexp no dim": lambda t: _x(t).logsumexp(),
    "logsumexp None": lambda t: _x(t).logsumexp(None),
    "logsumexp out": lambda t: _x(t).logsumexp(1, out=None),
    "torch.logsumexp str": lambda t: t.logsumexp(_x(t), "a"),
}


@pytest.mark.parametrize("form", WRONG_CALLS)
def test_wrong_calls_are_refused_with_torchs_words(form: str) -> None:
    same(lambda t: WRONG_CALLS[form](t), raises="TypeError")


GRADS: dict[str, Any] = {
    "amax 1": lambda t, x: x.amax(1),
    "amax -1 keepdim": lambda t, x: x.amax(-1, True),
    "amin all": lambda t, x: x.amin(),
    "amin empty list": lambda t, x: t.amin(x, []),
    "amax ties": lambda t, x: (x * 0).amax(-1, True),
    "amax ties all": lambda t, x: (x * 0 + 1).amax(),
    "amin (1, 0)": lambda t, x: x.amin((1, 0)),
    "logsumexp 1": lambda t, x: x.logsumexp(1),
    "logsumexp -2 keepdim": lambda t, x: x.logsumexp(-2, keepdim=True),
    "logsumexp all keepdim": lambda t, x: t.logsumexp(x, (0, 1), True),
    "logsumexp (1, 0)": lambda t, x: x.logsumexp((1, 0)),
}


def _leaf(t: Any) -> Any:
    return t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)


@pytest.mark.parametrize("case", GRADS)
def test_nodes_saved_values_and_gradients_are_torchs(case: str) -> None:
    same_node_and_gradients(_leaf, GRADS[case])


@pytest.mark.parametrize("case", GRADS)
def test_second_order_gradients_are_torchs(case: str) -> None:
    def program(t: Any) -> Any:
        x = _leaf(t)
        return second_order(t, (GRADS[case](t, x) ** 2 * 1.5).sum(), x)

    same(program)


@pytest.mark.parametrize("op", ["amax", "amin", "logsumexp"])
def test_gradients_of_0d_and_nan_inputs_are_torchs(op: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(2.5, requires_grad=True)
        n = t.tensor([[1.0, NAN], [INF, 0.0]], requires_grad=True)
        (getattr(x, op)(0) * 3).backward()
        getattr(n, op)(1).sum().backward()
        return grad_of(x), grad_of(n)

    same(program)


@pytest.mark.parametrize("op", ["amax", "logsumexp"])
def test_a_write_into_the_result_is_seen_by_backward(op: str) -> None:
    def program(t: Any) -> Any:
        x = _leaf(t)
        y = getattr(x, op)(1)
        y.add_(1)
        return error_of(lambda: y.sum().backward()) or grad_of(x)

    same(program)


def _zeros(t: Any) -> Any:
    """Zeros of both signs among negatives, whose memory order is not the logical order."""
    return t.tensor([[[-1.0, -0.0], [0.0, -3.0]], [[-0.0, -5.0], [0.0, -0.0]]]).permute(2, 0, 1)


ZERO_SIGNS: dict[str, Any] = {
    "fuzz program 221": lambda t: t.tensor([[[2.0, -0.5, -1.5]], [[0.0, -1.5, -0.0]]]).amax(-1),
    "amax all": lambda t: _zeros(t).amax(),
    "amax (1, 2)": lambda t: _zeros(t).amax((1, 2)),
    "amax (2, 0) keepdim": lambda t: _zeros(t).amax((2, 0), keepdim=True),
    "amax 1": lambda t: _zeros(t).amax(1),
    "amin 0": lambda t: (_zeros(t) + 3).amin(0) - 3,
    "amax of a transpose": lambda t: t.tensor([[-1.0, -0.0], [0.0, -2.0]]).t().amax(),
    "amax -0.0 first": lambda t: t.tensor([-0.0, -1.0, 0.0]).amax(0),
    "amin 0.0 first": lambda t: t.tensor([0.0, 1.0, -0.0]).amin(),
    "amax float64": lambda t: _zeros(t).double().amax((0, 1)),
    "amax 0-d": lambda t: t.tensor(-0.0).amax(),
}


@pytest.mark.parametrize("form", ZERO_SIGNS)
def test_a_zero_result_has_the_sign_of_the_first_zero_in_memory_order(form: str) -> None:
    # values compare equal whatever their zeros' signs: 1 / y shows each sign as an infinity's
    same(lambda t: 1 / ZERO_SIGNS[form](t))
