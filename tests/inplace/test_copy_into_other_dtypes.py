"""``copy_`` from a tensor that requires grad into a tensor of another dtype.

torch's ``copy_`` records ``CopyBackwards`` only when the written tensor's dtype can require
grad: an integer or bool tensor (or a view of one) copies the values and stays out of the graph
(``requires_grad`` False, no ``grad_fn``), its version moved once. A floating tensor of another
precision is recorded, and the source's gradient comes back in the source's dtype. ``fill_`` and
``masked_fill_`` have no such rule: torch records them into an integer tensor too.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same

PAIRS = [
    ("int64", "float32"),
    ("int32", "float64"),
    ("int64", "float64"),
    ("bool", "float32"),
    ("float32", "float64"),
    ("float64", "float32"),
    ("float32", "float32"),
]


def _facts(t: Any, written: Any, src: Any) -> list[Any]:
    facts = [written, written.requires_grad, written.grad_fn, written.is_leaf, written._version]
    if written.requires_grad:
        (written * t.arange(1.0, 3.0, dtype=written.dtype)).sum().backward()
        facts.append(grad_of(src))
    return facts


@pytest.mark.parametrize(("into", "source"), PAIRS, ids=[f"{a}<-{b}" for a, b in PAIRS])
def test_copy_into_a_tensor_of_another_dtype(into: str, source: str) -> None:
    def program(t: Any) -> Any:
        i = t.zeros(2, dtype=getattr(t, into))
        src = t.tensor([1.5, 2.5], dtype=getattr(t, source), requires_grad=True)
        out = i.copy_(src)
        return [out is i, *_facts(t, i, src)]

    same(program)


@pytest.mark.parametrize("into", ["int64", "bool", "float64"])
def test_copy_into_a_view_of_another_dtype(into: str) -> None:
    def program(t: Any) -> Any:
        base = t.zeros(3, dtype=getattr(t, into))
        v = base[1:]
        src = t.tensor([1.5, -2.5], requires_grad=True)
        v.copy_(src)
        return [base, base.requires_grad, base.grad_fn, base._version, *_facts(t, v, src)]

    same(program)


def test_setitem_of_an_integer_tensor_from_a_tensor_requiring_grad() -> None:
    def program(t: Any) -> Any:
        i = t.tensor([1, 2, 3])
        i[1:] = t.tensor([1.5, 2.5], requires_grad=True)
        i[0] = t.tensor(7.5, requires_grad=True)
        return [i, i.requires_grad, i.grad_fn, i._version]

    same(program)


def test_the_issues_program() -> None:
    def program(t: Any) -> Any:
        i = t.tensor([1, 2])
        i.copy_(t.tensor([1.5, 2.5], requires_grad=True))
        return [i.requires_grad, i.grad_fn]

    assert same(program) == [False, None]


@pytest.mark.parametrize("fill", ["fill_", "masked_fill_"])
def test_fills_of_an_integer_tensor_are_recorded_as_torch_records_them(fill: str) -> None:
    def program(t: Any) -> Any:
        i = t.tensor([1, 2, 3])
        value = t.tensor(1.5, requires_grad=True)
        if fill == "fill_":
            i.fill_(value)
        else:
            i.masked_fill_(t.tensor([True, False, True]), value)
        return [i, i.requires_grad, i.grad_fn, i.is_leaf]

    same(program)
