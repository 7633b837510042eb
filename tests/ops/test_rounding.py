"""``floor``, ``ceil``, ``round`` (with ``decimals``), ``trunc`` and their in-place forms:
torch's values (half to even; ``decimals`` computed in the tensor's dtype as torch's kernel
does), dtypes, refusals by kernel name, nodes (nothing saved), zero gradients, version counters
and the in-place contract."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same
from support.gradients import plain, saved_values, weighted_backward

NAN, INF = float("nan"), float("inf")
TENSORS: dict[str, Any] = {
    "float32": lambda t: t.tensor([[1.5, -2.5, 0.5], [-0.5, 2.49, -1.7]]),
    "halves": lambda t: t.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5]),
    "float64": lambda t: t.tensor([1234.5678, -0.125, 1.005, 7.0], dtype=t.float64),
    "int64": lambda t: t.tensor([1, -2, 3]),
    "int32": lambda t: t.tensor([[4, -5]], dtype=t.int32),
    "nonfinite": lambda t: t.tensor([NAN, INF, -INF, -0.0]),
    "0-d": lambda t: t.tensor(-3.7),
    "empty": lambda t: t.zeros(2, 0),
    "transposed": lambda t: t.tensor([[0.3, 1.7], [-2.2, 5.5], [9.9, -0.1]]).t(),
}
CALLS: dict[str, Any] = {
    "floor": lambda t, x: x.floor(),
    "ceil": lambda t, x: x.ceil(),
    "trunc": lambda t, x: x.trunc(),
    "round": lambda t, x: x.round(),
    "torch.floor": lambda t, x: t.floor(x),
    "torch.ceil": lambda t, x: t.ceil(x),
    "torch.trunc": lambda t, x: t.trunc(x),
    "torch.round": lambda t, x: t.round(x),
}
DECIMALS = [-3, -2, -1, 0, 1, 2, 3]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("tensor", TENSORS)
def test_values_and_dtypes_are_torchs(call: str, tensor: str) -> None:
    same(lambda t: CALLS[call](t, TENSORS[tensor](t)))


@pytest.mark.parametrize("decimals", DECIMALS)
@pytest.mark.parametrize("tensor", ["float32", "halves", "float64", "nonfinite", "0-d"])
def test_round_to_decimals_is_torchs(tensor: str, decimals: int) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        return x.round(decimals=decimals), t.round(x, decimals=decimals)

    same(program)


INPLACE: dict[str, Any] = {
    "floor_": lambda t, x: x.floor_(),
    "ceil_": lambda t, x: x.ceil_(),
    "trunc_": lambda t, x: x.trunc_(),
    "round_": lambda t, x: x.round_(),
    "round_ decimals": lambda t, x: x.round_(decimals=1),
    "torch.round_ decimals": lambda t, x: t.round_(x, decimals=-1),
    "torch.floor_": lambda t, x: t.floor_(x),
    "torch.ceil_": lambda t, x: t.ceil_(x),
    "torch.trunc_": lambda t, x: t.trunc_(x),
}


@pytest.mark.parametrize("call", INPLACE)
@pytest.mark.parametrize("tensor", ["float32", "int64", "transposed", "0-d"])
def test_in_place_forms_write_self_once(call: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        view = x[..., :1] if x.dim() else x.view(())
        y = INPLACE[call](t, x)
        return y is x, x, x._version, view, view._version

    same(program)


REFUSALS: dict[str, Any] = {
    "bool floor": lambda t: t.tensor([True]).floor(),
    "bool ceil_": lambda t: t.tensor([True]).ceil_(),
    "bool trunc": lambda t: t.trunc(t.tensor([False])),
    "bool round": lambda t: t.tensor([True]).round(),
    "bool round decimals": lambda t: t.tensor([True]).round(decimals=1),
    "int64 round decimals": lambda t: t.tensor([1]).round(decimals=1),
    "int64 round decimals 0": lambda t: t.tensor([1]).round(decimals=0),
    "int32 round decimals 0": lambda t: t.tensor([1], dtype=t.int32).round(decimals=0),
    "int64 round_ decimals": lambda t: t.tensor([1]).round_(decimals=-1),
    "leaf floor_": lambda t: t.tensor([1.5], requires_grad=True).floor_(),
    "bool round decimals 0": lambda t: t.tensor([True]).round(decimals=0),
    "bool round_ decimals 0": lambda t: t.round_(t.tensor([True]), decimals=0),
    # the kernel refuses a dtype once the written tensor's overlap is checked
    "expanded bool floor_": lambda t: t.tensor([True]).expand(2).floor_(),
    "expanded int64 round_ decimals": lambda t: t.tensor([1]).expand(2).round_(decimals=1),
    "expanded int64 trunc_": lambda t: t.tensor([1]).expand(2).trunc_(),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t))


WRONG_CALLS: dict[str, Any] = {
    "round positional": lambda t: t.tensor([1.5]).round(1),
    "round positional and keyword": lambda t: t.tensor([1.5]).round(1, decimals=2),
    "round decimals None": lambda t: t.tensor([1.5]).round(decimals=None),
    "round decimals float": lambda t: t.tensor([1.5]).round(decimals=1.5),
    "round unknown keyword": lambda t: t.tensor([1.5]).round(foo=1),
    "torch.round positional": lambda t: t.round(t.tensor([1.5]), 1),
    "torch.round unknown keyword": lambda t: t.round(t.tensor([1.5]), foo=1),
    "round_ positional": lambda t: t.tensor([1.5]).round_(1),
    "floor argument": lambda t: t.tensor([1.5]).floor(1),
    "floor_ argument": lambda t: t.tensor([1.5]).floor_(1),
    "torch.floor two": lambda t: t.floor(t.tensor([1.5]), 1),
    "torch.ceil number": lambda t: t.ceil(1.5),
}


@pytest.mark.parametrize("form", WRONG_CALLS)
def test_wrong_calls_are_refused_with_torchs_words(form: str) -> None:
    same(lambda t: WRONG_CALLS[form](t), raises="TypeError")


GRADS: dict[str, Any] = {
    "floor": lambda t, x: x.floor(),
    "ceil": lambda t, x: t.ceil(x),
    "trunc": lambda t, x: x.trunc(),
    "round": lambda t, x: x.round(),
    "round decimals": lambda t, x: x.round(decimals=1),
    "round decimals 0": lambda t, x: t.round(x, decimals=0),
    "floor_": lambda t, x: x.clone().floor_(),
    "ceil_ of a view": lambda t, x: (x * 1)[0].ceil_(),
    "round_ decimals": lambda t, x: (x * 1).round_(decimals=2),
    "trunc_": lambda t, x: (x + 0).trunc_(),
}


@pytest.mark.parametrize("case", GRADS)
def test_nodes_and_zero_gradients_are_torchs(case: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -2.0, 3.25], [0.5, 4.75, -1.0]], requires_grad=True)
        y = GRADS[case](t, x)
        fn = y.grad_fn
        # a written view's node is torch's AsStridedBackward0, whose saved geometry the engine
        # does not show (for any in-place op on a view): its node's name is compared
        saved = None if "view" in case else saved_values(fn)
        weighted_backward(t, y)
        x2 = t.tensor([[1.5, -2.0, 3.25], [0.5, 4.75, -1.0]], requires_grad=True)
        out = (GRADS[case](t, x2) * x2 * x2).sum()
        (gx,) = t.autograd.grad(out, x2, create_graph=True)
        return (
            y,
            y._version,
            fn,
            fn.next_functions[0][0],
            saved,
            grad_of(x),
            gx,
            plain(t.autograd.grad(gx.sum(), x2)),
        )

    same(program)
