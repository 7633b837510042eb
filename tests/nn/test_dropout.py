"""``F.dropout`` and ``nn.Dropout`` under torch and ownership: which tensor comes back, the node
and what it saves, that every element is either zero or the input scaled by ``1 / (1 - p)``
(that scale bit for bit), the gradient (the saved noise itself), versions, torch's refusals, the
module's repr and state, and a zero fraction within a bound set by the binomial spread of the
draws. The draws themselves are torch's, compared bit for bit in ``tests/random/``."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same


def _facts(t: Any, y: Any, x: Any, p: float) -> Any:
    """What a training-mode dropout of ``x`` gives that the draws do not decide."""
    noise = y.grad_fn._saved_other
    scale = noise.max()
    return (
        y.grad_fn.name(),
        y.dtype,
        y.shape,
        noise.shape,
        noise._version,
        scale,
        bool(((noise == 0) | (noise == scale)).all()),
        bool(((y == 0) | (y == x * scale)).all()),
    )


@pytest.mark.parametrize("p", [0.5, 0.2, 0.9])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_training_dropout_zeroes_or_scales_and_its_gradient_is_the_noise(
    p: float, dtype: str
) -> None:
    def program(t: Any) -> Any:
        x = (t.arange(1.0, 41.0, dtype=getattr(t, dtype)) / 7).requires_grad_()
        y = t.nn.functional.dropout(x, p)
        facts = _facts(t, y, x, p)
        y.sum().backward()
        return facts, bool((x.grad == y.grad_fn._saved_other).all())

    same(program)


def test_what_returns_the_input_itself() -> None:
    def program(t: Any) -> Any:
        F = t.nn.functional
        x = t.ones(3, requires_grad=True)
        empty = t.ones(0, requires_grad=True)
        return (
            F.dropout(x, 0.5, training=False) is x,
            F.dropout(x, 0.0) is x,
            F.dropout(empty, 0.5) is empty,
            t.nn.Dropout().eval()(x) is x,
        )

    same(program)


def test_p_one_multiplies_by_a_zero() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, -2.0, float("inf")], requires_grad=True)
        y = t.nn.functional.dropout(x, 1.0)
        facts = (y, y.grad_fn.name(), y.grad_fn._saved_other)
        y.sum().backward()
        return facts, grad_of(x)

    same(program)


def test_in_place_dropout() -> None:
    def program(t: Any) -> Any:
        F = t.nn.functional
        leaf = t.ones(3, requires_grad=True)
        refused = error_of(lambda: F.dropout(leaf, 0.5, inplace=True))
        x = t.arange(1.0, 9.0, requires_grad=True)
        w = x * 1
        y = F.dropout(w, 0.5, inplace=True)
        facts = (y is w, w._version, w.grad_fn.name(), bool(((w == 0) | (w == x * 2)).all()))
        zero = x * 1
        t.nn.Dropout(1.0, inplace=True)(zero)
        return refused, facts, zero, zero._version

    same(program)


REFUSED: dict[str, Any] = {
    "p above 1": lambda t: t.nn.functional.dropout(t.ones(2), 1.5),
    "p below 0": lambda t: t.nn.functional.dropout(t.ones(2), -0.1),
    "module p below 0": lambda t: t.nn.Dropout(-0.1),
    "int tensor": lambda t: t.nn.functional.dropout(t.tensor([1, 2]), 0.5),
    "not a tensor": lambda t: t.nn.functional.dropout([1.0, 2.0], 0.5),
}


@pytest.mark.parametrize("call", REFUSED)
def test_refusals_are_torchs(call: str) -> None:
    same(REFUSED[call])


def test_the_module_owns_nothing_and_prints_as_torchs() -> None:
    def program(t: Any) -> Any:
        layer = t.nn.Dropout(0.25, inplace=True)
        model = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.Dropout())
        return (
            repr(layer),
            repr(t.nn.Dropout(p=1)),
            repr(model),
            list(layer.state_dict()),
            list(layer.parameters()),
            list(layer.buffers()),
            layer.training,
            layer.eval().training,
            layer.p,
            layer.inplace,
        )

    same(program)


def test_zero_fraction_follows_p() -> None:
    """10,000 draws with p = 0.3: the zero fraction's standard deviation is 0.0046, so the
    bound of 0.03 is six and a half of them."""

    def program(t: Any) -> Any:
        t.manual_seed(0)
        y = t.nn.functional.dropout(t.ones(100, 100), 0.3)
        return abs(float((y == 0).float().mean()) - 0.3) < 0.03

    assert same(program) is True
