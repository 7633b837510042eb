"""The gradient of ``cross_entropy``/``nll_loss`` has +0.0 where torch's kernel writes nothing.

torch zero-fills the input gradient and writes only the target entries, so the rows of ignored
targets (and the non-target entries of ``nll_loss``) are +0.0, never -0.0. Values compare equal
either way, so the tests compare ``np.signbit`` of the gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

from support.differential import same

LOGITS = np.random.RandomState(0).randn(4, 3).astype(np.float32)


def _signs(grad) -> list[list[bool]]:
    return np.signbit(grad.detach().numpy()).tolist()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_ignored_rows_get_positive_zero(reduction: str) -> None:
    def program(t):
        logits = t.tensor(LOGITS, requires_grad=True)
        target = t.tensor([0, -100, 2, -100])
        loss = t.nn.functional.cross_entropy(logits, target, reduction=reduction)
        (grad,) = t.autograd.grad(loss.sum(), logits)
        return [grad, _signs(grad)]

    same(program)


def test_nll_loss_non_target_entries_get_positive_zero() -> None:
    def program(t):
        logp = t.tensor(LOGITS, requires_grad=True)
        target = t.tensor([0, -100, 2, 1])
        loss = t.nn.functional.nll_loss(logp, target, reduction="none")
        (grad,) = t.autograd.grad(loss, logp, t.tensor([1.0, -2.0, -3.0, 4.0]))
        return [grad, _signs(grad)]

    same(program)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target", [[0, 2, 1, 2], [0, -100, 2, 1], [-100] * 4])
@pytest.mark.parametrize("value", [np.inf, np.nan, 0.0, -0.0, -1.5])
@pytest.mark.parametrize("grad_dtype", ["float32", "float64"])
@pytest.mark.parametrize("extra_dim", [False, True])
def test_nll_loss_gradient_is_minus_the_gradient_at_the_targets_and_positive_zero_elsewhere(
    reduction: str, target: list[int], value: float, grad_dtype: str, extra_dim: bool
) -> None:
    """torch's kernel zero-fills the input gradient, then writes ``-g / total_weight``
    (``-g`` for a sum) at each kept target: the other entries stay +0.0 even for an infinite or
    nan gradient, and a gradient of +0.0 writes -0.0 at the targets (a float64 gradient is cast
    to the loss's float32 first)."""

    def program(t):
        logp = t.tensor(LOGITS, requires_grad=True)
        x, tgt = logp, t.tensor(target)
        if extra_dim:  # targets along dim 1 of a 3-d input
            x, tgt = logp.unsqueeze(-1).expand(4, 3, 2), tgt.unsqueeze(-1).expand(4, 2)
        loss = t.nn.functional.nll_loss(x, tgt, reduction=reduction)
        g = t.full(loss.shape, value, dtype=getattr(t, grad_dtype))
        (grad,) = t.autograd.grad(loss, logp, g)
        values = grad.numpy()
        # the sign of a nan is the CPU's (which operand's nan a product keeps): not compared
        return [grad, (np.signbit(values) & ~np.isnan(values)).tolist(), np.isnan(values).tolist()]

    same(program)


RELU_GRADS = [np.inf, -np.inf, np.nan, -0.0, 0.0, -3.5, 2.0, 1e-40]


def _relu_program(dtype: str, layout: str, with_strides: bool):
    inputs = np.array([[1.0, -1.0, 0.0, 2.0], [-2.0, 3.0, -0.0, 5.0]] * 4)  # 8 x 4

    def program(t):
        dt = getattr(t, dtype)
        x = t.tensor(inputs, dtype=dt, requires_grad=True)
        g = t.tensor(np.resize(np.array(RELU_GRADS), (8, 4)), dtype=dt)
        if layout == "transposed":
            x = x.t()
            g = t.tensor(np.resize(np.array(RELU_GRADS), (4, 8)), dtype=dt)
        elif layout == "gradient transposed":  # the result row-major, the gradient not
            g = t.tensor(np.resize(np.array(RELU_GRADS), (4, 8)), dtype=dt).t()
        elif layout == "strided":
            x = x[::2]
            g = t.tensor(np.resize(np.array(RELU_GRADS), (8, 8)), dtype=dt)[::2, ::2]
        (grad,) = t.autograd.grad(x.relu(), x, g)
        if with_strides:
            return grad.stride()
        return [grad, _signs(grad), np.isnan(grad.numpy()).tolist()]

    return program


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "gradient transposed", "strided"])
def test_relu_backward_is_the_gradient_or_positive_zero_bit_for_bit(
    dtype: str, layout: str
) -> None:
    """relu's backward (``threshold_backward``) keeps the incoming gradient where the result is
    positive and writes +0.0 elsewhere, inf and nan included."""
    same(_relu_program(dtype, layout, with_strides=False))


@pytest.mark.parametrize(
    "layout",
    ["contiguous", "transposed", "gradient transposed", "strided"],
)
def test_relu_backward_gradient_strides(layout: str) -> None:
    """The gradient is laid out like the saved result where the two layouts differ (torch's
    kernel iterates the result first)."""
    same(_relu_program("float32", layout, with_strides=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("value", [2.0, -2.0, 0.0, np.nan])
@pytest.mark.parametrize("shape", [(), (20,)])
def test_relu_backward_keeps_the_gradient_of_a_nan_and_takes_any_shape(
    dtype: str, value: float, shape: tuple[int, ...]
) -> None:
    """torch's kernel zeroes the gradient where ``result <= 0``: a nan result keeps it. A 0-d
    result's mask is a numpy scalar, not an array: the backward computes it all the same."""

    def program(t):
        dt = getattr(t, dtype)
        x = t.full(shape, value, dtype=dt, requires_grad=True)
        x.relu().backward(t.full(shape, -3.0, dtype=dt))
        return [x.grad, _signs(x.grad)]

    same(program)


def test_deleting_grad_fn_is_refused_and_other_attributes_delete_as_usual() -> None:
    def program(t):
        y = t.ones(2, requires_grad=True) * 2
        out = []
        for name in ("_grad_fn", "no_such_attribute"):
            try:
                delattr(y, name)
                out.append("deleted")
            except Exception as exc:  # the class and the message are compared
                out.append((type(exc).__name__, str(exc)))
        return [out, y.grad_fn, y._grad_fn is y.grad_fn]  # still readable after the refusal

    same(program)


RELU_FORMS = {
    "relu": lambda t, x: t.relu(x),
    "relu_": lambda t, x: x.clone().relu_(),
    "functional": lambda t, x: t.nn.functional.relu(x),
    "module": lambda t, x: t.nn.ReLU()(x),
    "method": lambda t, x: x.relu(),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", sorted(RELU_FORMS))
def test_relu_keeps_a_nan_and_the_infinities_as_torch(form: str, dtype: str) -> None:
    """torch's relu is ``0 if x < 0 else x``: a NaN stays NaN, ``inf`` stays, ``-inf`` is 0; long
    enough for numpy's SIMD kernels, and 0-d. (The sign of a zero result is each CPU's SIMD
    kernel's, in torch as in numpy: values are compared, and ``-0.0 == 0.0``.)"""

    def program(t):
        values = [-0.0, 0.0, -1.5, float("nan"), 2.0, -0.0, float("-inf"), float("inf")] * 9
        x = t.tensor(values, dtype=getattr(t, dtype))
        y = RELU_FORMS[form](t, x)
        scalar = RELU_FORMS[form](t, t.tensor(float("nan"), dtype=getattr(t, dtype)))
        return [y, (y != y).tolist(), scalar]

    same(program)
