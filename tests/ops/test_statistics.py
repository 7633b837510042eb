"""``var``, ``var_mean`` and ``norm`` under torch and ownership: each overload of ``var`` (what its
node shows as ``_saved_correction`` and ``_saved_dim``), the degrees-of-freedom warning and the
gradients torch gives when there are none, the vector norms with ``dtype=``, dims checked as a
reduction's, inf norms of empty tensors, and torch's refusals (no numpy error or warning)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same


def _x(t: Any) -> Any:
    return t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]], dtype=t.float64, requires_grad=True)


def _saved(t: Any, out: Any) -> Any:
    fn = out.grad_fn
    if fn is None:
        return None
    names = [a for a in dir(fn) if a.startswith("_saved_")]
    return fn.name(), {a: getattr(fn, a) for a in names if not isinstance(getattr(fn, a), t.Tensor)}


def _run(t: Any, call: Any) -> Any:
    """The results, their nodes' saved values, and the gradient of their sum."""
    x = _x(t)
    out = call(t, x)
    outs = out if isinstance(out, tuple) else (out,)
    facts = [(o, _saved(t, o)) for o in outs]
    sum(o.sum() for o in outs).backward()
    return facts, grad_of(x)


VAR: dict[str, Any] = {
    "var()": lambda t, x: x.var(),
    "var(True)": lambda t, x: x.var(True),
    "var(False)": lambda t, x: x.var(False),
    "var(unbiased=False)": lambda t, x: x.var(unbiased=False),
    "var(None)": lambda t, x: x.var(None),
    "var(dim=None)": lambda t, x: x.var(dim=None),
    "var(-1)": lambda t, x: x.var(-1),
    "var(0, False, True)": lambda t, x: x.var(0, False, True),
    "var((0, -1))": lambda t, x: x.var((0, -1)),
    "var([])": lambda t, x: x.var([]),
    "var(keepdim=True)": lambda t, x: x.var(keepdim=True),
    "var(0, correction=0)": lambda t, x: x.var(0, correction=0),
    "var(correction=1.5)": lambda t, x: x.var(correction=1.5),
    "var(correction=True)": lambda t, x: x.var(correction=True),
    "var(dim=1, correction=None)": lambda t, x: x.var(dim=1, correction=None),
    "var(-1, correction=3): no degree of freedom": lambda t, x: x.var(-1, correction=3),
    "var(correction=6): none at all": lambda t, x: x.var(correction=6),
    "var(correction=8): fewer than none": lambda t, x: x.var(correction=8),
    "var(1, correction=5): fewer than none": lambda t, x: x.var(1, correction=5),
    "var of one element": lambda t, x: x[:1, :1].var(),
    "var of a 0-d tensor over dim 0": lambda t, x: x[0, 0].var(0),
    "torch.var(x)": lambda t, x: t.var(x),
    "torch.var(x, 1, False)": lambda t, x: t.var(x, 1, False),
    "torch.var(x, unbiased=False)": lambda t, x: t.var(x, unbiased=False),
    "var_mean(x)": lambda t, x: t.var_mean(x),
    "var_mean(x, 0)": lambda t, x: t.var_mean(x, 0),
    "var_mean(x, -1, keepdim=True, correction=0)": lambda t, x: t.var_mean(
        x, -1, keepdim=True, correction=0
    ),
    "var_mean(x, [])": lambda t, x: t.var_mean(x, []),
    "var_mean(x, False)": lambda t, x: t.var_mean(x, False),
    "var_mean(x, correction=3)": lambda t, x: t.var_mean(x, 1, correction=3),
}


@pytest.mark.parametrize("call", VAR)
def test_var_is_torchs(call: str) -> None:
    same(lambda t: _run(t, VAR[call]))


STD: dict[str, Any] = {
    "std()": lambda t, x: x.std(),
    "std(1)": lambda t, x: x.std(1),
    "std(-1, keepdim=True)": lambda t, x: x.std(-1, keepdim=True),
    "std(unbiased=False)": lambda t, x: x.std(unbiased=False),
    "std(0, correction=0)": lambda t, x: x.std(0, correction=0),
    "std([])": lambda t, x: x.std([]),
    "std of equal elements (a zero std)": lambda t, x: (x * 0 + 1).std(1),
    "std(-1, correction=3): no degree of freedom": lambda t, x: x.std(-1, correction=3),
    "std of one element": lambda t, x: x[:1, :1].std(),
    "torch.std(x, 0)": lambda t, x: t.std(x, 0),
    "std_mean(x)": lambda t, x: t.std_mean(x),
    "std_mean(x, 1, keepdim=True)": lambda t, x: t.std_mean(x, 1, keepdim=True),
    "std_mean(x, False)": lambda t, x: t.std_mean(x, False),
    "std_mean(x, correction=2)": lambda t, x: t.std_mean(x, 0, correction=2),
}


@pytest.mark.parametrize("call", STD)
def test_std_is_torchs(call: str) -> None:
    same(lambda t: _run(t, STD[call]))


def test_std_and_std_mean_save_their_result() -> None:
    def program(t: Any) -> Any:
        x = _x(t)
        s = x.std(1)
        sm, m = t.std_mean(x, 0)
        return (
            s.grad_fn._saved_result is s,
            s.grad_fn._saved_self is x,
            sm.grad_fn._saved_result0 is sm,
            m.grad_fn is sm.grad_fn,
        )

    same(program)


NORM: dict[str, Any] = {
    "norm()": lambda t, x: x.norm(),
    "norm(1)": lambda t, x: x.norm(1),
    "norm(2.0)": lambda t, x: x.norm(2.0),
    "norm(3, dim=-1)": lambda t, x: x.norm(3, dim=-1),
    "norm(0.5)": lambda t, x: x.norm(0.5),
    "norm(0)": lambda t, x: x.norm(0),
    "norm(-1)": lambda t, x: x.norm(-1),
    "norm(inf, 0)": lambda t, x: x.norm(float("inf"), 0),
    "norm(-inf)": lambda t, x: x.norm(float("-inf")),
    "norm(p=None)": lambda t, x: x.norm(p=None),
    "norm('fro', (0, 1))": lambda t, x: x.norm("fro", (0, 1)),
    "norm(dim=[1], keepdim=True)": lambda t, x: x.norm(dim=[1], keepdim=True),
    "norm(dim=())": lambda t, x: x.norm(dim=()),
    "norm(dtype=float64) of float32": lambda t, x: x.float().norm(dtype=t.float64),
    "torch.norm(x, dim=1)": lambda t, x: t.norm(x, dim=1),
}


@pytest.mark.parametrize("call", NORM)
def test_norm_is_torchs(call: str) -> None:
    same(lambda t: _run(t, NORM[call]))


REFUSED: dict[str, Any] = {
    "var of ints": lambda t: t.tensor([1, 2]).var(),
    "var dim out of range": lambda t: t.ones(2, 3).var(5),
    "var dims repeated": lambda t: t.ones(2, 3).var((0, 0)),
    "var of a 0-d tensor over dim 1": lambda t: t.tensor(2.0).var(1),
    "var(str)": lambda t: t.ones(2).var("a"),
    "torch.var(x, str)": lambda t: t.var(t.ones(2), "a"),
    "var_mean(x, str)": lambda t: t.var_mean(t.ones(2), "a"),
    "std(str)": lambda t: t.ones(2).std("a"),
    "std_mean(x, str)": lambda t: t.std_mean(t.ones(2), "a"),
    "std of ints": lambda t: t.tensor([1, 2]).std(),
    "var(unbiased=, keepdim=)": lambda t: t.ones(2).var(unbiased=True, keepdim=True),
    "var(0, unbiased=, correction=)": lambda t: t.ones(2).var(0, unbiased=False, correction=2),
    "norm of ints": lambda t: t.tensor([1, 2]).norm(),
    "norm(dtype=int64)": lambda t: t.ones(2).norm(dtype=t.int64),
    "norm narrowing dtype": lambda t: t.ones(2, dtype=t.float64).norm(dtype=t.float32),
    "norm dim out of range": lambda t: t.ones(2, 3).norm(dim=5),
    "norm dims repeated": lambda t: t.ones(2, 3).norm(dim=(1, 1)),
    "norm(p='abc')": lambda t: t.ones(2).norm(p="abc"),
    "norm('fro') over three dims": lambda t: t.ones(2, 2, 2).norm("fro", (0, 1, 2)),
    "norm('nuc') of a vector": lambda t: t.ones(2).norm(p="nuc"),
    "inf norm of an empty tensor": lambda t: t.zeros(0).norm(float("inf")),
    "-inf norm of an empty tensor": lambda t: t.zeros(2, 0).norm(float("-inf")),
    "inf norm over an empty dim": lambda t: t.zeros(0, 3).norm(float("inf"), dim=0),
}


@pytest.mark.parametrize("call", REFUSED)
def test_refusals_are_torchs(call: str) -> None:
    same(REFUSED[call])


EMPTY: dict[str, Any] = {
    "var of an empty tensor": lambda t: t.zeros(0).var(),
    "var over an empty dim": lambda t: t.zeros(0, 3).var(0),
    "var_mean of an empty tensor": lambda t: t.var_mean(t.zeros(0)),
    "inf norm over a non-empty dim": lambda t: t.zeros(0, 3).norm(float("inf"), dim=1),
    "2-norm over an empty dim": lambda t: t.zeros(0, 3).norm(dim=0),
}


@pytest.mark.parametrize("call", EMPTY)
def test_empty_tensors_warn_as_torch_and_numpy_stays_silent(call: str) -> None:
    same(EMPTY[call])


OUT_OF_RANGE = {
    "2-norm overflows": ([1e20, 1e20], 2, None),
    "3-norm overflows": ([1e13, 1e13], 3, None),
    "1-norm sum overflows": ([3e38, 3e38], 1, None),
    "2-norm underflows": ([1e-30, 1e-30], 2, None),
    "-2-norm's powers overflow": ([1e-30, 1e-30], -2, None),
    "-1-norm": ([1e-30, 1e-30], -1, None),
    "single element": ([1e30], 3, None),
    "single elements along a dim": ([[1e30, 1.0]], 3, 0),
    "a row that overflows": ([[1e30, 1.0], [1.0, 1.0]], 2, 1),
}


@pytest.mark.parametrize("case", OUT_OF_RANGE, ids=list(OUT_OF_RANGE))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_float32_norm_overflows_and_underflows_where_torchs_kernel_does(
    case: str, dtype: str
) -> None:
    # module fuzzer (clip_grad_norm_ of gradients of 1e30): torch holds the powers and their sum
    # in the tensor's dtype; the norm of single elements is their absolute value
    values, order, dim = OUT_OF_RANGE[case]
    same(lambda t: t.tensor(values, dtype=getattr(t, dtype)).norm(order, dim=dim))
