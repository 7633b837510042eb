"""A view written in place before its base required grad gets its history when the base does.

torch's ``grad_fn`` of a view (``VariableHooks::grad_fn``) returns nothing, and remembers nothing,
while the view has no node and its base does not require grad; once the base requires grad, a
view whose version moved since its node was made gets an ``AsStridedBackward0`` on the base. So
``b = torch.tensor([0.0, 1.0, -0.5]); c = b[1:]; c.exp_(); c.is_leaf; b.requires_grad_()`` leaves
``c`` a non-leaf of ``AsStridedBackward0``, the earlier ``c.is_leaf`` notwithstanding.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import Named, grad_of, same


def _state(x: Any) -> list[Any]:
    return [x.requires_grad, x.is_leaf, x.grad_fn, x._version]


READS: dict[str, Any] = {
    "is_leaf": lambda c: c.is_leaf,
    "grad_fn": lambda c: c.grad_fn,
    "requires_grad": lambda c: c.requires_grad,
    "nothing": lambda c: None,
}

WRITES: dict[str, Any] = {
    "the view": lambda b, c: c.exp_(),
    "the base": lambda b, c: b.mul_(2),
    "another view": lambda b, c: b[:2].add_(1),
    "nothing": lambda b, c: None,
}

VIEWS: dict[str, Any] = {
    "slice": lambda b: b[1:],
    "unsqueezed slice": lambda b: b[1:].unsqueeze(0),
    "view of a view": lambda b: b[1:][:1],
    "transposed": lambda b: b.view(3, 1).t(),
}


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
@pytest.mark.parametrize("write", WRITES.values(), ids=WRITES.keys())
@pytest.mark.parametrize("read", READS.values(), ids=READS.keys())
def test_a_view_read_before_its_base_requires_grad(read: Any, write: Any, view: Any) -> None:
    def program(t: Any) -> Any:
        b = t.tensor([0.0, 1.0, -0.5])
        c = view(b)
        write(b, c)
        read(c)
        b.requires_grad_()
        facts = [*_state(c), *_state(b)]
        if c.requires_grad:
            (c * t.arange(1.0, c.numel() + 1).view(c.shape)).sum().backward()
            facts.append(grad_of(b))
        return facts

    same(program)


def test_the_issues_program() -> None:
    def program(t: Any) -> Any:
        b = t.tensor([0.0, 1.0, -0.5])
        c = b[1:]
        c.exp_()
        before = c.is_leaf
        b.requires_grad_()
        return [before, c.is_leaf, c.grad_fn]

    assert same(program) == [True, False, Named("<AsStridedBackward0>")]


def test_a_base_requiring_grad_then_not_leaves_the_view_a_leaf() -> None:
    def program(t: Any) -> Any:
        b = t.tensor([0.0, 1.0, -0.5])
        c = b[1:]
        c.exp_()
        c.grad_fn
        b.requires_grad_()
        b.requires_grad_(False)
        return _state(c)

    same(program)
