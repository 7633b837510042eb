"""mm's and addmm's backward lay each gradient out like its operand, as torch's
``mm_mat1_backward``/``mm_mat2_backward`` do: a column-major operand (``w.t()`` in ``Linear``)
gets its gradient computed transposed, so the gradient is column-major too and a leaf's ``.grad``
takes the leaf's own layout without a copy. Checked through hooks (which see the gradient an
operand receives) and ``.grad``, in a plain backward and with ``create_graph``
(where the products are ops, recorded as torch records them). Gradients that overflow are
inf, without a numpy warning.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def _operands(t: Any, layout: str) -> tuple[Any, Any, Any]:
    """A 4x3 and a 3x2 matrix requiring grad: row-major leaves, column-major leaves
    (``.t().detach()``), or column-major views (``.t()``) of row-major leaves; and a bias."""
    a0 = t.arange(12.0).reshape(3, 4) / 7 - 0.5
    b0 = t.arange(6.0).reshape(2, 3) / 5 - 0.3
    bias = t.tensor([0.5, -1.0], requires_grad=True)
    if layout == "rows":
        return a0.t().contiguous().requires_grad_(), b0.t().contiguous().requires_grad_(), bias
    if layout == "column leaves":
        return a0.t().detach().requires_grad_(), b0.t().detach().requires_grad_(), bias
    return a0.requires_grad_().t(), b0.requires_grad_().t(), bias


@pytest.mark.parametrize("layout", ["rows", "column leaves", "column views"])
@pytest.mark.parametrize("op", ["mm", "addmm", "linear"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_each_gradient_has_its_operands_layout(layout: str, op: str, create_graph: bool) -> None:
    def program(t: Any) -> Any:
        a, b, bias = _operands(t, layout)
        seen: list[Any] = []
        for x in (a, b):
            x.register_hook(lambda g: seen.append((g.stride(), g.is_contiguous(), g.detach())))
        if op == "mm":
            out = a.mm(b)
        elif op == "addmm":
            out = t.addmm(bias, a, b)
        else:
            out = t.nn.functional.linear(a, b.t(), bias)
        loss = (out * t.tensor([[1.0, -2.0]])).sum()
        leaves = [x for x in (a, b) + ((bias,) if op != "mm" else ()) if x.is_leaf]
        if create_graph:  # autograd.grad: backward(create_graph=True) warns once per process
            grads = t.autograd.grad(loss, leaves, create_graph=True)
        else:
            loss.backward()
            grads = tuple(x.grad for x in leaves)
        return seen, [(g.detach(), g.stride(), g.grad_fn) for g in grads]

    same(program)


@pytest.mark.parametrize("op", ["mm", "addmm", "linear"])
def test_overflowing_gradients_are_inf_without_a_numpy_warning(op: str) -> None:
    """The products and the bias's sum overflow to inf in backward, silently as in torch."""

    def program(t: Any) -> Any:
        a = t.full((3, 2), 3e38, requires_grad=True)
        b = t.full((2, 2), 2.0, requires_grad=True)
        bias = t.zeros(2, requires_grad=True)
        if op == "mm":
            out = a.mm(b)
        elif op == "addmm":
            out = t.addmm(bias, a, b)
        else:
            out = t.nn.functional.linear(a, b, bias)
        (out * 1e30).sum().backward()
        return out, a.grad, b.grad, bias.grad

    same(program)
