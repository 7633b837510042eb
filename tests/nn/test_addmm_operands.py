"""addmm's operands as torch checks them: the bias is expanded to the product's shape (torch's
``expand`` messages when it cannot be, even when ``beta`` is 0 and its values are ignored) and
its gradient summed back; each matrix must be 2-D and the two must fit (torch's messages).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from support.differential import same

ADDMM_BIASES = [(3,), (1, 3), (3, 1), (4, 1), (1, 2), (2,), (1,), (), (4, 2), (2, 4, 2)]


@pytest.mark.parametrize("bias_shape", ADDMM_BIASES)
@pytest.mark.parametrize("beta", [0, 1, 2.5])
def test_addmm_bias_broadcasts_or_fails_as_torchs_expand(
    bias_shape: tuple[int, ...], beta: float
) -> None:
    """The bias is expanded to the product's 4x2 (torch's expand messages when it cannot be),
    also when ``beta`` is 0 and its values are ignored; its gradient is summed back."""

    def program(t: Any) -> Any:
        bias = (t.arange(float(math.prod(bias_shape))).reshape(bias_shape) / 3).requires_grad_()
        mat1 = (t.arange(12.0).reshape(4, 3) / 5).requires_grad_()
        mat2 = (t.arange(6.0).reshape(3, 2) - 2).requires_grad_()
        out = t.addmm(bias, mat1, mat2, beta=beta, alpha=0.5)
        (out * t.tensor([[1.0, -3.0]])).sum().backward()
        return out, bias.grad, mat1.grad, mat2.grad

    same(program)


@pytest.mark.parametrize(
    "shapes", [((3,), (3, 2)), ((4, 3), (3,)), ((2, 4, 3), (3, 2)), ((4, 3), (2, 2))]
)
def test_addmm_operand_shape_errors(shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    same(lambda t: t.addmm(t.ones(3), t.ones(*shapes[0]), t.ones(*shapes[1])))


@pytest.mark.parametrize("bias_shape", [(3,), (1, 3), (3, 1), (4, 3), ()])
@pytest.mark.parametrize("beta", [1, 2.5])
def test_addmm_bias_gradient_is_torchs_view_of_its_sum(
    bias_shape: tuple[int, ...], beta: float
) -> None:
    """What a hook on the bias sees: the summed gradient viewed to the bias's shape where the
    ranks differ (``_is_view()``, its base's shape and strides), then the ``.grad`` left."""

    def program(t: Any) -> Any:
        seen: list[Any] = []
        bias = t.zeros(bias_shape, requires_grad=True)
        bias.register_hook(
            lambda g: seen.append(
                [g, g.stride(), g._is_view(), g._version]
                + ([tuple(g._base.shape), g._base.stride()] if g._is_view() else [])
            )
        )
        mat1 = (t.arange(8.0).reshape(4, 2) / 5).requires_grad_()
        mat2 = t.ones(2, 3, requires_grad=True)
        (t.addmm(bias, mat1, mat2, beta=beta) * 3.0).sum().backward()
        return seen, bias.grad, bias.grad.stride(), bias.grad._is_view()

    same(program)


def test_linear_bias_gradient_is_torchs_view_of_its_sum() -> None:
    def program(t: Any) -> Any:
        t.manual_seed(0)
        layer = t.nn.Linear(3, 2)
        seen: list[Any] = []
        layer.bias.register_hook(lambda g: seen.append([g, g._is_view(), g._base.shape]))
        layer(t.ones(4, 3)).sum().backward()
        return seen, layer.bias.grad._is_view()

    same(program)


def test_a_0d_operand_gradient_is_torchs_whole_sum() -> None:
    """torch's ``sum_to`` of a 0-d shape is ``sum()`` (no view), as a hook and the double
    backward's node show."""

    def program(t: Any) -> Any:
        seen: list[Any] = []
        b = t.tensor(0.5, requires_grad=True)
        b.register_hook(lambda g: seen.append([g, g._is_view()]))
        x = t.ones(2, 3, requires_grad=True)
        ((x + b) * 3.0).sum().backward()
        (g,) = t.autograd.grad(((x * b) ** 2).sum(), b, create_graph=True)
        return seen, b.grad, g, g.grad_fn

    same(program)
