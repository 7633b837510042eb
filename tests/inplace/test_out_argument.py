"""``out=`` of the pointwise functions: the result written into the given tensor, an in-place
write in torch's order (``ownership.out_argument``): autograd's refusal, the written tensor's
overlap checks, the function's own errors, the cast to ``out``'s dtype, the resize (with
torch's warning), then one version bump."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

B = [[1.0, 2.0], [3.0, -4.0]]


def _attempt(f: Any) -> Any:
    try:
        return f()
    except (RuntimeError, TypeError) as e:
        return type(e).__name__, str(e)


# every function that writes out, called with a 2 x 2 float operand ``b``
CALLS = {
    "add": lambda t, b, out: t.add(b, 1, out=out),
    "add alpha": lambda t, b, out: t.add(b, b, alpha=2, out=out),
    "sub": lambda t, b, out: t.sub(b, 0.5, out=out),
    "mul": lambda t, b, out: t.mul(b, b, out=out),
    "div": lambda t, b, out: t.div(b, 4, out=out),
    "div floor": lambda t, b, out: t.div(b, 4, rounding_mode="floor", out=out),
    "pow": lambda t, b, out: t.pow(b, 2, out=out),
    "pow of a number": lambda t, b, out: t.pow(2, b, out=out),
    "abs": lambda t, b, out: t.abs(b, out=out),
    "absolute": lambda t, b, out: t.absolute(b, out=out),
    "neg": lambda t, b, out: t.neg(b, out=out),
    "exp": lambda t, b, out: t.exp(b, out=out),
    "expm1": lambda t, b, out: t.expm1(b, out=out),
    "log": lambda t, b, out: t.log(b, out=out),
    "log1p": lambda t, b, out: t.log1p(b, out=out),
    "sqrt": lambda t, b, out: t.sqrt(b, out=out),
    "square": lambda t, b, out: t.square(b, out=out),
    "sin": lambda t, b, out: t.sin(b, out=out),
    "cos": lambda t, b, out: t.cos(b, out=out),
    "tanh": lambda t, b, out: t.tanh(b, out=out),
    "sigmoid": lambda t, b, out: t.sigmoid(b, out=out),
    "erf": lambda t, b, out: t.erf(b, out=out),
    "sign": lambda t, b, out: t.sign(b, out=out),
    "floor": lambda t, b, out: t.floor(b, out=out),
    "ceil": lambda t, b, out: t.ceil(b, out=out),
    "trunc": lambda t, b, out: t.trunc(b, out=out),
    "relu": lambda t, b, out: t.relu(b, out=out),
    "isnan": lambda t, b, out: t.isnan(b, out=out),
    "isinf": lambda t, b, out: t.isinf(b, out=out),
    "isfinite": lambda t, b, out: t.isfinite(b, out=out),
    "reciprocal": lambda t, b, out: t.reciprocal(b, out=out),
    "round": lambda t, b, out: t.round(b / 3, out=out),
    "round decimals": lambda t, b, out: t.round(b / 3, decimals=1, out=out),
    "eq": lambda t, b, out: t.eq(b, 2.0, out=out),
    "ne": lambda t, b, out: t.ne(b, b, out=out),
    "lt": lambda t, b, out: t.lt(b, 0, out=out),
    "ge": lambda t, b, out: t.ge(b, b.t(), out=out),
    "logical_and": lambda t, b, out: t.logical_and(b, b > 2, out=out),
    "logical_not": lambda t, b, out: t.logical_not(b, out=out),
    "bitwise_and": lambda t, b, out: t.bitwise_and(b.to(t.int64), 3, out=out),
    "bitwise_xor": lambda t, b, out: t.bitwise_xor(b > 0, b > 1, out=out),
    "bitwise_left_shift": lambda t, b, out: t.bitwise_left_shift(b.to(t.int64), 1, out=out),
    "bitwise_right_shift of a number": lambda t, b, out: t.bitwise_right_shift(
        64, b.to(t.int64).abs(), out=out
    ),
    "maximum": lambda t, b, out: t.maximum(b, b.t(), out=out),
    "minimum": lambda t, b, out: t.minimum(b, t.zeros(2), out=out),
    "clamp": lambda t, b, out: t.clamp(b, min=0.0, max=2.5, out=out),
    "clip": lambda t, b, out: t.clip(b, max=1, out=out),
    "clamp_min": lambda t, b, out: t.clamp_min(b, 0.5, out=out),
    "clamp_max": lambda t, b, out: t.clamp_max(b, b.t(), out=out),
    "floor_divide": lambda t, b, out: t.floor_divide(b, 1.5, out=out),
    "remainder": lambda t, b, out: t.remainder(b, 1.5, out=out),
    "remainder of a number": lambda t, b, out: t.remainder(5, b, out=out),
    "clamp by tensors": lambda t, b, out: t.clamp(b, min=t.zeros(2), out=out),
    "clamp_min by a tensor": lambda t, b, out: t.clamp_min(b, t.zeros(2), out=out),
    "clamp_max by a number": lambda t, b, out: t.clamp_max(b, 1.0, out=out),
}

# ``out`` of each kind: (dtype name, shape, made how)
OUTS = {
    "same": ("float32", (2, 2), "zeros"),
    "float64": ("float64", (2, 2), "zeros"),
    "int64": ("int64", (2, 2), "zeros"),
    "bool": ("bool", (2, 2), "zeros"),
    "transposed": ("float32", (2, 2), "transposed"),
    "empty": ("float32", (0,), "zeros"),
    "other shape": ("float32", (3,), "zeros"),
    "a view": ("float32", (2, 2), "view"),
}


def _out(t: Any, kind: str) -> tuple[Any, Any]:
    """``(out, what to look at afterwards)``: the tensor to write, and its base for a view."""
    dtype, shape, how = OUTS[kind]
    dt = getattr(t, dtype)
    if how == "transposed":
        out = t.zeros(shape, dtype=dt).t()
        return out, out
    if how == "view":
        base = t.zeros(3, 3, dtype=dt)
        return base[1:, 1:], base
    out = t.zeros(shape, dtype=dt)
    return out, out


@pytest.mark.parametrize("kind", sorted(OUTS))
@pytest.mark.parametrize("call", sorted(CALLS))
def test_out_is_written_in_place(call: str, kind: str) -> None:
    """The values, dtype, shape, strides and version of ``out`` (and of a view's base), that
    ``out`` itself is returned, and torch's errors and resize warning."""

    def program(t: Any) -> Any:
        b = t.tensor(B)
        out, seen = _out(t, kind)
        returned = _attempt(lambda: CALLS[call](t, b, out))
        return [
            returned is out or returned,
            seen,
            seen._version,
            out.shape,
            out.stride(),
        ]

    same(program)


@pytest.mark.parametrize("call", ["mul", "exp", "add alpha"])
def test_autograd_refuses_out_with_an_argument_that_requires_grad(call: str) -> None:
    """An input or ``out`` requiring grad is refused while grad mode is on (before anything is
    written); under ``no_grad`` and in inference mode the write happens, ``out`` keeps its
    ``requires_grad`` and gets no ``grad_fn``."""

    def program(t: Any) -> Any:
        b = t.tensor(B)
        a = t.tensor(B, requires_grad=True)
        facts = [
            _attempt(lambda: CALLS[call](t, a, t.zeros(2, 2))),
            _attempt(lambda: CALLS[call](t, b, t.zeros(2, 2, requires_grad=True))),
        ]
        for mode in (t.no_grad, t.inference_mode):
            out = t.zeros(2, 2, requires_grad=True)
            with mode():
                facts.append(_attempt(lambda out=out: CALLS[call](t, a, out)))
            facts += [out, out.grad_fn, out._version]
        return facts

    same(program)


def test_out_overlapping_an_input() -> None:
    """The very same elements may be read and written; an input partly overlapping ``out`` is
    refused, as is an ``out`` whose elements repeat."""

    def program(t: Any) -> Any:
        facts = []
        x = t.arange(4.0)
        facts += [_attempt(lambda: t.mul(x, 2, out=x)), x._version]
        y = t.arange(4.0)
        facts += [_attempt(lambda: t.mul(y[:2], 2, out=y[1:3])), y, y._version]
        z = t.zeros(4).expand(2, 4)[:, :2]
        facts.append(_attempt(lambda: t.neg(t.ones(2, 2), out=z)))
        return facts

    same(program)


def test_out_keeps_its_storage_for_views_when_resized_smaller() -> None:
    """A resize to fewer elements keeps ``out``'s storage: a view of it sees the values."""

    def program(t: Any) -> Any:
        out = t.zeros(6)
        view = out[:4]
        t.add(t.ones(2), 1, out=out)
        return [out, view, view._version, out.untyped_storage().nbytes()]

    same(program)


def test_out_argument_errors_come_first() -> None:
    def program(t: Any) -> Any:
        return [
            _attempt(lambda: t.mul(t.ones(2), t.ones(2), out=[1.0])),
            _attempt(lambda: t.exp(t.ones(2), out=t.zeros(2), extra=1)),
            _attempt(lambda: t.add(t.ones(2), t.ones(3), out=t.zeros(2))),
        ]

    same(program)
