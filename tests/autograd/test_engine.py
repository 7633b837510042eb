"""The backward engine: iterative, deterministic, gradients summed at leaves, graphs freed."""

from __future__ import annotations

import ownership as torch


def test_a_deep_chain_does_not_hit_the_recursion_limit() -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad is not None and x.grad.item() == 1.0


def test_diamond_graph_sums_both_paths() -> None:
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    a = x * 3
    b = x.exp()
    (a + b).sum().backward()
    assert x.grad is not None
    assert [round(v, 4) for v in x.grad.tolist()] == [
        round(3 + 7.389056, 4),
        round(3 + 20.085537, 4),
    ]


def test_second_order_gradient_of_a_cube_is_six_x() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x**3).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, 12.0]


def test_saved_tensors_are_released_after_backward() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    node = y.grad_fn
    y.sum().backward()
    assert node is not None and node._saved is None
    try:
        node._saved_result
    except RuntimeError as exc:
        assert "second time" in str(exc)
    else:
        raise AssertionError("freed saved tensor was readable")


def test_order_is_reproducible() -> None:
    seen: list[list[str]] = []
    for _ in range(2):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).exp() + (x - 1).tanh() * x
        names = []
        stack = [y.grad_fn]
        while stack:
            n = stack.pop()
            if n is None:
                continue
            names.append(n.name())
            stack.extend(f for f, _ in n.next_functions)
        seen.append(names)
    assert seen[0] == seen[1]


def test_tensor_attribute_writes_stay_on_the_slot_path() -> None:
    """No class of Tensor defines ``__setattr__`` or ``__delattr__`` in Python: either one routes
    every attribute write of every tensor through a generic slow path (``_grad_fn``'s refused
    deletion is a property's deleter instead)."""
    from ownership import Tensor

    for cls in Tensor.__mro__[:-1]:
        assert "__setattr__" not in vars(cls) and "__delattr__" not in vars(cls), cls
    assert isinstance(vars(Tensor)["_grad_fn"], property)
