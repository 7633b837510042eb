"""gradcheck of every op's backward in float64, and a gradcheck that catches a wrong backward."""

from __future__ import annotations

import pytest

from support.custom_functions import square
from support.differential import same

# Inputs away from kinks (0 for relu/abs, the clamp bounds, ties for max) and positive where needed.
A = [[0.7, 1.3, 2.1], [1.6, 0.4, 0.9]]
B = [[1.2, 0.6, 1.7], [0.8, 1.9, 0.5]]

ONE_INPUT = {
    "neg": lambda t, a: -a,
    "exp": lambda t, a: a.exp(),
    "log": lambda t, a: a.log(),
    "sqrt": lambda t, a: a.sqrt(),
    "abs": lambda t, a: (a - 1.0).abs(),
    "sigmoid": lambda t, a: a.sigmoid(),
    "tanh": lambda t, a: a.tanh(),
    "relu": lambda t, a: (a - 1.0).relu(),
    "clamp": lambda t, a: a.clamp(0.5, 1.5),
    "clamp_min": lambda t, a: a.clamp(min=1.0),
    "pow_int": lambda t, a: a.pow(3),
    "pow_float": lambda t, a: a**1.7,
    "rpow": lambda t, a: 1.5**a,
    "add_scalar": lambda t, a: a + 2.0,
    "rsub_scalar": lambda t, a: 2.0 - a,
    "mul_scalar": lambda t, a: a * 3.0,
    "div_scalar": lambda t, a: a / 3.0,
    "rdiv_scalar": lambda t, a: 3.0 / a,
    "sum": lambda t, a: a.sum(),
    "sum_dim": lambda t, a: a.sum(1),
    "sum_keepdim": lambda t, a: a.sum(0, keepdim=True),
    "mean": lambda t, a: a.mean(),
    "mean_dim": lambda t, a: a.mean(-1),
    "max": lambda t, a: a.max(),
    "max_dim": lambda t, a: a.max(1)[0],
    "softmax": lambda t, a: a.softmax(1),
    "softmax_0": lambda t, a: a.softmax(0),
    "log_softmax": lambda t, a: a.log_softmax(1),
    "view": lambda t, a: a.view(3, 2),
    "reshape_copy": lambda t, a: a.t().reshape(6),
    "flatten": lambda t, a: a.flatten(),
    "t": lambda t, a: a.t(),
    "T": lambda t, a: a.T,
    "transpose": lambda t, a: a.transpose(0, 1),
    "permute": lambda t, a: a.unsqueeze(0).permute(2, 0, 1),
    "expand": lambda t, a: a[:, :1].expand(2, 4),
    "unsqueeze": lambda t, a: a.unsqueeze(1),
    "squeeze": lambda t, a: a[:1].squeeze(0),
    "narrow": lambda t, a: a.narrow(1, 1, 2),
    "select": lambda t, a: a.select(1, 2),
    "unbind": lambda t, a: a.unbind(1)[1],
    "split": lambda t, a: a.split(2, dim=1)[0],
    "chunk": lambda t, a: a.chunk(2, dim=0)[1],
    "index": lambda t, a: a[1, ::2],
    "advanced_index": lambda t, a: a[t.tensor([1, 1, 0])],
    "mask_index": lambda t, a: a[a > 1.0],
    "clone": lambda t, a: a.clone(),
    "contiguous": lambda t, a: a.t().contiguous(),
    "inplace_on_clone": lambda t, a: a.clone().mul_(2.0).exp_(),
    "inplace_on_view": lambda t, a: _write_view(a),
    "setitem": lambda t, a: _setitem(t, a),
    "F_relu": lambda t, a: t.nn.functional.relu(a - 1.0),
    "F_sigmoid": lambda t, a: t.nn.functional.sigmoid(a),
    "F_tanh": lambda t, a: t.nn.functional.tanh(a),
    "F_softmax": lambda t, a: t.nn.functional.softmax(a, dim=1),
    "F_log_softmax": lambda t, a: t.nn.functional.log_softmax(a, dim=1),
    "F_cross_entropy": lambda t, a: t.nn.functional.cross_entropy(a, t.tensor([2, 0])),
    "F_cross_entropy_ignore": lambda t, a: t.nn.functional.cross_entropy(
        a, t.tensor([2, -100]), reduction="sum"
    ),
    "F_mse_loss": lambda t, a: t.nn.functional.mse_loss(a, t.ones(2, 3, dtype=t.float64)),
}


def _write_view(a):
    x = a * 1
    x[:, 1].mul_(a[:, 0])
    x[0].sigmoid_()
    return x


def _setitem(t, a):
    x = a * 2
    x[1, 0] = a[0, 2] ** 2
    return x


TWO_INPUTS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "matmul": lambda a, b: a @ b.t(),
    "matmul_vec": lambda a, b: a @ b[0],
    "add_broadcast": lambda a, b: a + b[0],
    "mul_broadcast": lambda a, b: a[:, :1] * b,
    "div_broadcast": lambda a, b: a / b[:1],
    "pow_broadcast": lambda a, b: a[:1] ** b,
    "copy_into_clone": lambda a, b: a.clone().copy_(b * 2),
    "inplace_add": lambda a, b: a.clone().add_(b),
    "inplace_div": lambda a, b: a.clone().div_(b),
}


def _inputs(t, *rows):
    return tuple(t.tensor(r, dtype=t.float64, requires_grad=True) for r in rows)


@pytest.mark.parametrize("op", sorted(ONE_INPUT))
def test_gradcheck_one_input_op(op: str) -> None:
    r = same(lambda t: t.autograd.gradcheck(lambda a: ONE_INPUT[op](t, a), _inputs(t, A)))
    assert r is True


@pytest.mark.parametrize("op", sorted(TWO_INPUTS))
def test_gradcheck_two_input_op(op: str) -> None:
    assert same(lambda t: t.autograd.gradcheck(TWO_INPUTS[op], _inputs(t, A, B))) is True


def test_gradcheck_with_explicit_tolerances_and_several_outputs() -> None:
    def program(t):
        return t.autograd.gradcheck(
            lambda a, b: (a.exp() * b, (a @ b.t()).sum()),
            _inputs(t, A, B),
            eps=1e-6,
            atol=1e-5,
            rtol=1e-3,
        )

    assert same(program) is True


def wrong_square(t):
    """``square`` with a wrong backward (``3x`` instead of ``2x``) for gradcheck to catch."""

    class WrongSquare(square(t)):
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * grad

    return WrongSquare


def test_gradcheck_catches_a_wrong_backward() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        t.autograd.gradcheck(wrong_square(t).apply, (x,))

    r = same(program)
    assert r.kind == "GradcheckError"
    assert r.message.startswith("Jacobian mismatch for output 0 with respect to input 0,\n")


def test_gradcheck_error_is_a_runtime_error() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        try:
            t.autograd.gradcheck(wrong_square(t).apply, (x,))
        except RuntimeError as exc:
            return type(exc).__name__
        return "no error"

    assert same(program) == "GradcheckError"


def test_gradcheck_without_raising_returns_false() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        return t.autograd.gradcheck(wrong_square(t).apply, (x,), raise_exception=False)

    assert same(program) is False


def test_gradcheck_catches_a_wrong_second_input() -> None:
    def program(t):
        class HalfWrong(t.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                return grad * b, grad * a * 2

        return t.autograd.gradcheck(HalfWrong.apply, _inputs(t, [1.0, 2.0], [3.0, 4.0]))

    r = same(program, message=r"^Jacobian mismatch for output 0 with respect to input 1,\n")
    assert r.kind == "GradcheckError"


def test_gradcheck_passes_a_correct_custom_function() -> None:
    def program(t):
        return t.autograd.gradcheck(square(t).apply, _inputs(t, A))

    assert same(program) is True


def test_gradcheck_refuses_an_input_with_overlapping_memory() -> None:
    """The gradcheck docs warn about expand outputs as inputs; torch refuses them outright."""

    def program(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64).view(2, 1).expand(2, 3).requires_grad_()
        return t.autograd.gradcheck(lambda a: a * 2, (x,))

    assert same(program).kind == "RuntimeError"


def test_gradcheck_needs_an_input_that_requires_grad() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64)
        return t.autograd.gradcheck(lambda a: a * a, (x,))

    assert same(program).kind == "ValueError"


def test_gradcheck_tolerances_decide_a_borderline_backward() -> None:
    """A backward off by 0.05 %: fails the defaults' atol, passes a looser rtol or atol."""

    def program(t):
        class Off(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad * 1.0005

        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        check = t.autograd.gradcheck
        return [
            check(Off.apply, (x,), raise_exception=False),
            check(Off.apply, (x,), rtol=1e-2, raise_exception=False),
            check(Off.apply, (x,), atol=1e-2, rtol=0.0, raise_exception=False),
        ]

    same(program)


def test_gradcheck_names_the_output_that_is_wrong() -> None:
    def program(t):
        class Two(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1, x * 2

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 + g2

        x = t.tensor([1.0], dtype=t.float64, requires_grad=True)
        return t.autograd.gradcheck(Two.apply, (x,))

    assert same(program).message.startswith(
        "Jacobian mismatch for output 1 with respect to input 0"
    )
