"""``masked_fill`` and ``masked_fill_`` under torch and ownership: values, dtypes, broadcasting,
refusals, nodes, saved masks, gradients of self and of a tensor value, versions and aliases."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def _x(t: Any) -> Any:
    return t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def _mask(t: Any) -> Any:
    return t.tensor([True, False, True])


CALLS: dict[str, Any] = {
    "number": lambda t: _x(t).masked_fill(_mask(t), 0.5),
    "-inf (an attention mask)": lambda t: _x(t).masked_fill(_mask(t), float("-inf")),
    "nan": lambda t: _x(t).masked_fill(_mask(t), float("nan")),
    "bool value": lambda t: _x(t).masked_fill(_mask(t), True),
    "0-d tensor": lambda t: _x(t).masked_fill(_mask(t), t.tensor(7.0)),
    "0-d int tensor": lambda t: _x(t).masked_fill(_mask(t), t.tensor(7)),
    "float into int": lambda t: t.tensor([1, 2, 3]).masked_fill(_mask(t), 1.5),
    "float tensor into int": lambda t: t.tensor([1, 2, 3]).masked_fill(_mask(t), t.tensor(7.5)),
    "int beyond int32": lambda t: t.tensor([1, 2, 3], dtype=t.int32).masked_fill(_mask(t), 2**40),
    "int64 keeps 2**40": lambda t: t.tensor([1, 2, 3]).masked_fill(_mask(t), 2**40),
    "mask grows self": lambda t: t.tensor([1.0, 2.0, 3.0]).masked_fill(
        t.tensor([[True], [False]]), 0.0
    ),
    "transposed self": lambda t: _x(t).t().masked_fill(t.tensor([True, False]), 0.0),
    "int mask": lambda t: _x(t).masked_fill(t.tensor([1, 0, 1]), 0.5),
    "1-d value": lambda t: _x(t).masked_fill(_mask(t), t.tensor([7.0, 8.0, 9.0])),
    "mask cannot broadcast": lambda t: _x(t).masked_fill(t.tensor([True, False]), 0.0),
    "keywords": lambda t: _x(t).masked_fill(mask=_mask(t), value=1),
    "function": lambda t: t.masked_fill(_x(t), _mask(t), 1),
    "no value": lambda t: _x(t).masked_fill(_mask(t)),
    "str value": lambda t: _x(t).masked_fill(_mask(t), "a"),
}


@pytest.mark.parametrize("call", CALLS)
def test_masked_fill_is_torchs(call: str) -> None:
    same(lambda t: (lambda out: (out, out.stride(), out.is_contiguous()))(CALLS[call](t)))


INPLACE: dict[str, Any] = {
    "number": lambda t, x: x.masked_fill_(_mask(t), 0.5),
    "0-d tensor": lambda t, x: x.masked_fill_(_mask(t), t.tensor(-1.0)),
    "broadcast mask": lambda t, x: x.masked_fill_(t.tensor([[True], [False]]), 0.0),
    "mask would grow self": lambda t, x: x[0].masked_fill_(t.tensor([[True], [False]]), 0.0),
    "into a view": lambda t, x: x[:, 1].masked_fill_(t.tensor([True, False]), 9.0),
    "expanded self": lambda t, x: x[0].expand(2, 3).masked_fill_(_mask(t), 0.0),
    # a column expanded: the mask picks one of each row's elements, which share one location
    "expanded column, one of each row": lambda t, x: (
        x[:, :1].expand(2, 3).masked_fill_(t.tensor([False, True, False]), 0.0)
    ),
    "expanded column, one element, 0-d tensor": lambda t, x: (
        x[:, 2:]
        .expand(2, 3)
        .masked_fill_(t.tensor([[True, False, False], [False, False, False]]), t.tensor(-1.0))
    ),
    "int mask": lambda t, x: x.masked_fill_(t.tensor([1, 0, 1]), 0.5),
    # the written elements alone, each memory location once or many times: a transpose, and an
    # expanded transpose whose picked and left elements share locations
    "transposed self": lambda t, x: x.t().masked_fill_(t.tensor([[True, False]] * 3), 0.0),
    "expanded transpose": lambda t, x: (
        x[:1]
        .t()
        .expand(3, 2)
        .masked_fill_(t.tensor([[True, False], [False, False], [False, False]]), -2.0)
    ),
}


@pytest.mark.parametrize("call", INPLACE)
def test_masked_fill__writes_through_every_alias(call: str) -> None:
    def program(t: Any) -> Any:
        x = _x(t)
        alias, view = x, x[1]
        out = INPLACE[call](t, x)
        return out._version, alias, alias._version, view, view._version

    same(program)


def test_masked_fill_gradients_and_nodes_are_torchs() -> None:
    def program(t: Any) -> Any:
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = t.tensor(2.0, requires_grad=True)
        number = w.masked_fill(_mask(t), 0.0)
        tensor = (w * 1).masked_fill(t.tensor([[True, False, True], [False, False, True]]), v)
        (number.sum() + (tensor * t.tensor([[1.0], [10.0]])).sum()).backward()
        return (
            number.grad_fn,
            tensor.grad_fn,
            len(tensor.grad_fn.next_functions),
            tensor.grad_fn._saved_mask,
            w.grad,
            v.grad,
        )

    same(program)


def test_masked_fill__is_recorded_and_differentiable() -> None:
    def program(t: Any) -> Any:
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = t.tensor(5.0, requires_grad=True)
        y = w * 2
        y.masked_fill_(_mask(t), v)
        (y * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        return y.grad_fn, y._version, w.grad, v.grad

    same(program)


def test_a_leaf_that_requires_grad_refuses_masked_fill_() -> None:
    same(lambda t: t.ones(3, requires_grad=True).masked_fill_(_mask(t), 0.0))


def test_writing_the_mask_before_backward_is_a_version_error() -> None:
    def program(t: Any) -> Any:
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        mask = _mask(t)
        y = w.masked_fill(mask, 0.0)
        mask.fill_(False)
        y.sum().backward()

    same(program)


MASK_ORDER: dict[str, Any] = {
    "mask shorter": lambda t, x, b: x.masked_fill_(t.tensor([True, False]), 0.0),
    "mask longer": lambda t, x, b: x.masked_fill_(t.tensor([True, False, True, True]), 0.0),
    "mask wider": lambda t, x, b: x.masked_fill_(t.ones(2, 4, dtype=t.bool), 0.0),
    "expanded, mask shorter": lambda t, x, b: x.expand(2, 4).masked_fill_(
        t.tensor([True, False]), 0.0
    ),
    "mask overlapping, shorter": lambda t, x, b: b.masked_fill_(b[:2], True),
    "mask overlapping": lambda t, x, b: b[:3].masked_fill_(b[1:], True),
    "mask overlapping, tensor value": lambda t, x, b: b[:3].masked_fill_(b[1:], t.tensor(True)),
    "mask is self": lambda t, x, b: b.masked_fill_(b, False),
    "complex value, mask shorter": lambda t, x, b: x.masked_fill_(t.tensor([True, False]), 0.5j),
    # the value converted to the written dtype, checked
    "complex value": lambda t, x, b: x.masked_fill_(b, 0.5j),
    "complex value, real": lambda t, x, b: x.masked_fill_(b, 1 + 0j),
    "complex value into bool": lambda t, x, b: b.masked_fill_(b, 1j),
    "float beyond float32": lambda t, x, b: x.masked_fill_(b, 1e40),
    "float64 tensor beyond float32": lambda t, x, b: x.masked_fill_(
        b, t.tensor(1e40, dtype=t.float64)
    ),
    "nan into int64": lambda t, x, b: x.long().masked_fill_(b, float("nan")),
    "nan tensor into int64": lambda t, x, b: x.long().masked_fill_(b, t.tensor(float("nan"))),
    "inf tensor into int32": lambda t, x, b: x.int().masked_fill_(b, t.tensor(float("inf"))),
    "2**40 tensor into int32": lambda t, x, b: x.int().masked_fill_(b, t.tensor(2**40)),
    "1e20 into int64, none picked": lambda t, x, b: x.long().masked_fill_(b & False, 1e20),
    "nan tensor into bool": lambda t, x, b: b.masked_fill_(~b, t.tensor(float("nan"))),
    "nan tensor into int64, out of place": lambda t, x, b: x.long().masked_fill(
        b, t.tensor(float("nan"))
    ),
    "out of place, float beyond float32": lambda t, x, b: x.masked_fill(b, 1e40),
}


@pytest.mark.parametrize("case", MASK_ORDER)
def test_masked_fill_checks_overlap_then_sizes_in_torchs_words(case: str) -> None:
    """``masked_fill_`` checks its value (converted to the written dtype), then that the mask
    does not overlap the written tensor, then their shapes, naming the written tensor first
    ("tensor a") when they do not broadcast."""

    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0, 3.0, 4.0])
        b = t.tensor([True, False, True, False])
        MASK_ORDER[case](t, x, b)
        return x, b

    same(program)
