"""``isclose`` and ``allclose`` (functions and methods): torch's results (bool tensors of the
broadcast shape, a Python bool), its rules (same dtype; integers and bools compared through the
default dtype; infinities, NaN and ``equal_nan``; zero tolerances), and its refusals."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

NAN, INF = float("nan"), float("inf")
PAIRS: dict[str, Any] = {
    "float32": lambda t: (
        t.tensor([1.0, 2.0, NAN, INF, -INF, INF, 0.0, 1e-9]),
        t.tensor([1.0 + 1e-6, 2.1, NAN, INF, INF, 1e38, -0.0, 0.0]),
    ),
    "float64": lambda t: (
        t.tensor([1.0, 1.0 + 1e-12, NAN, 100.0], dtype=t.float64),
        t.tensor([1.0 + 1e-5, 1.0, 0.0, 100.001], dtype=t.float64),
    ),
    "float32 at the edge": lambda t: (
        t.tensor([1.0, 1.0, 1.0]),
        t.tensor([1.00001, 1.000015, 0.99999]),
    ),
    "int64": lambda t: (t.tensor([100, 2, 10, 2**62]), t.tensor([101, 3, 11, 2**62 + 1])),
    "int32": lambda t: (
        t.tensor([100, 2, -5], dtype=t.int32),
        t.tensor([101, 3, -5], dtype=t.int32),
    ),
    "bool": lambda t: (t.tensor([True, False, True]), t.tensor([True, True, False])),
    "broadcast": lambda t: (t.ones(2, 1), t.tensor([1.0, 1.0 + 1e-7, 2.0])),
    "0-d": lambda t: (t.tensor(1.0), t.tensor(1.0 + 1e-9)),
    "empty": lambda t: (t.zeros(0), t.zeros(0)),
    "transposed": lambda t: (t.arange(6.0).reshape(2, 3).t(), t.arange(6.0).reshape(3, 2)),
    "float and double": lambda t: (t.tensor([1.0]), t.tensor([1.0], dtype=t.float64)),
    "int and float": lambda t: (t.tensor([1]), t.tensor([1.0])),
    "shapes that do not broadcast": lambda t: (t.ones(2), t.ones(3)),
}
CALLS: dict[str, Any] = {
    "torch.isclose(a, b)": lambda t, a, b: t.isclose(a, b),
    "a.isclose(b, equal_nan=True)": lambda t, a, b: a.isclose(b, equal_nan=True),
    "a.isclose(b, 0.1, 0.0, True)": lambda t, a, b: a.isclose(b, 0.1, 0.0, True),
    "rtol=0.05": lambda t, a, b: t.isclose(a, b, rtol=0.05),
    "atol=1": lambda t, a, b: t.isclose(a, b, atol=1),
    "atol=0.5, rtol=0": lambda t, a, b: a.isclose(b, atol=0.5, rtol=0),
    "rtol=0, atol=0": lambda t, a, b: t.isclose(a, b, rtol=0, atol=0.0),
    "atol=inf": lambda t, a, b: t.isclose(a, b, atol=INF),
    "rtol=1e10": lambda t, a, b: t.isclose(a, b, rtol=1e10),
    "rtol=-1": lambda t, a, b: t.isclose(a, b, rtol=-1),
    "atol=-0.5": lambda t, a, b: a.isclose(b, atol=-0.5),
    "torch.allclose(a, b)": lambda t, a, b: t.allclose(a, b),
    "a.allclose(b)": lambda t, a, b: a.allclose(b),
    "a.allclose(b, equal_nan=True)": lambda t, a, b: a.allclose(b, equal_nan=True),
    "torch.allclose(a, b, 0.1, 0, True)": lambda t, a, b: t.allclose(a, b, 0.1, 0, True),
    "a.allclose(b, atol=-1e-10)": lambda t, a, b: a.allclose(b, atol=-1e-10),
    "b.isclose(a) (not symmetric)": lambda t, a, b: b.isclose(a, rtol=0.1),
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("pair", PAIRS)
def test_isclose_and_allclose_are_torchs(call: str, pair: str) -> None:
    def program(t: Any) -> Any:
        a, b = PAIRS[pair](t)
        result = CALLS[call](t, a, b)
        return result, type(result).__name__

    same(program)


def test_a_tensor_that_requires_grad_gives_a_plain_bool_tensor() -> None:
    def program(t: Any) -> Any:
        a = t.tensor([1.0, 2.0], requires_grad=True)
        y = t.isclose(a * 2, t.tensor([2.0, 5.0]))
        return y, y.requires_grad, y.grad_fn, t.allclose(a, a.detach())

    same(program)


REFUSALS: dict[str, Any] = {
    "torch.isclose(a, 1.0)": lambda t, a: t.isclose(a, 1.0),
    "torch.allclose(a, 1.0)": lambda t, a: t.allclose(a, 1.0),
    "a.allclose(1.0)": lambda t, a: a.allclose(1.0),
    "a.isclose([1.0])": lambda t, a: a.isclose([1.0]),
    "a.allclose([1.0])": lambda t, a: a.allclose([1.0]),
    "torch.isclose([1.0], a)": lambda t, a: t.isclose([1.0], a),
    "a.isclose(a, 'x')": lambda t, a: a.isclose(a, "x"),
    "a.allclose(a, 'x')": lambda t, a: a.allclose(a, "x"),
    "a.allclose()": lambda t, a: a.allclose(),
    "torch.isclose(a)": lambda t, a: t.isclose(a),
    "a.isclose(a, equal_nan=1)": lambda t, a: a.isclose(a, equal_nan=1),
    "a.isclose(a, foo=1)": lambda t, a: a.isclose(a, foo=1),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_type_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t, t.tensor([1.0, NAN])), raises="TypeError")
