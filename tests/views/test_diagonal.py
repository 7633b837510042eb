"""``diagonal`` under torch and ownership: the view's sizes, strides and offset, its values and
aliasing, torch's refusals, ``DiagonalBackward0`` and its saved values, gradients (first and
second order), and in-place writes through the view."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same


def _cube(t: Any) -> Any:
    return t.arange(24.0).reshape(2, 3, 4)


def _geometry(out: Any) -> Any:
    return out, out.shape, out.stride(), out.storage_offset(), out.is_contiguous(), out._is_view()


CALLS: dict[str, Any] = {
    "square": lambda t: t.arange(9.0).reshape(3, 3).diagonal(),
    "wide, offset 1": lambda t: t.arange(12.0).reshape(3, 4).diagonal(1),
    "tall, offset -1": lambda t: t.arange(12.0).reshape(4, 3).diagonal(-1),
    "offset past the end": lambda t: t.arange(6.0).reshape(2, 3).diagonal(5),
    "offset past the start": lambda t: t.arange(6.0).reshape(2, 3).diagonal(-5),
    "3-d, default dims": lambda t: _cube(t).diagonal(),
    "3-d, dims 1 and 2": lambda t: _cube(t).diagonal(0, 1, 2),
    "3-d, dims reversed": lambda t: _cube(t).diagonal(1, 2, 0),
    "negative dims": lambda t: _cube(t).diagonal(1, -1, 0),
    "keywords": lambda t: _cube(t).diagonal(dim1=2, dim2=0, offset=-1),
    "of a transposed view": lambda t: t.arange(6.0).reshape(2, 3).t().diagonal(1),
    "of a slice": lambda t: t.arange(16.0).reshape(4, 4)[1:, ::2].diagonal(),
    "empty rows": lambda t: t.ones(0, 3).diagonal(),
    "int": lambda t: t.arange(9).reshape(3, 3).diagonal(),
    "bool": lambda t: (t.arange(9).reshape(3, 3) > 3).diagonal(),
    "function": lambda t: t.diagonal(_cube(t), 1, 0, 2),
    "function keywords": lambda t: t.diagonal(_cube(t), dim1=1, dim2=2),
    "same dims": lambda t: _cube(t).diagonal(0, 0, 0),
    "same dims, one negative": lambda t: _cube(t).diagonal(0, 0, -3),
    "dim out of range": lambda t: _cube(t).diagonal(0, 3, 0),
    "1-d": lambda t: t.tensor([1.0, 2.0]).diagonal(),
    "0-d": lambda t: t.tensor(1.0).diagonal(),
    "float offset": lambda t: _cube(t).diagonal(1.5),
    "str dim": lambda t: _cube(t).diagonal(0, "a"),
    "too many": lambda t: _cube(t).diagonal(0, 0, 1, 2),
    "unknown keyword": lambda t: _cube(t).diagonal(foo=1),
    "offset beyond int64": lambda t: _cube(t).diagonal(2**63),
    "function of a list": lambda t: t.diagonal([1.0]),
    "function, str offset": lambda t: t.diagonal(_cube(t), "x"),
}


@pytest.mark.parametrize("call", CALLS)
def test_diagonal_is_torchs(call: str) -> None:
    same(lambda t: _geometry(CALLS[call](t)))


def test_diagonal_shares_memory_and_version_both_ways() -> None:
    def program(t: Any) -> Any:
        m = t.zeros(3, 4)
        d = m.diagonal(1)
        d.fill_(7.0)
        m[0, 1] = 2.0
        return m, d, m._version, d._version, d._base is m

    same(program)


def test_diagonal_node_and_saved_values_are_torchs() -> None:
    def program(t: Any) -> Any:
        a = _cube(t).requires_grad_()
        out = []
        for args in ((0, 0, 1), (1, -1, 0), (-2, 2, -3), (7, 0, 2)):
            fn = a.diagonal(*args).grad_fn
            out.append(
                (
                    fn.name(),
                    fn._saved_offset,
                    fn._saved_dim1,
                    fn._saved_dim2,
                    fn._saved_self_sym_sizes,
                    [n for n in dir(fn) if n.startswith("_saved")],
                )
            )
        return out

    same(program)


@pytest.mark.parametrize("args", [(0, 0, 1), (1, 0, 1), (-1, 1, 0), (1, -1, 0), (5, 0, 1)])
def test_diagonal_gradient_is_torchs(args: tuple[int, int, int]) -> None:
    def program(t: Any) -> Any:
        a = t.arange(24.0, dtype=t.float64).reshape(2, 3, 4).requires_grad_()
        seen: list[Any] = []
        a.register_hook(lambda g: seen.append((g._version, g.is_contiguous())))
        d = a.diagonal(*args)
        (d * t.arange(1.0, d.numel() + 1.0, dtype=t.float64).reshape(d.shape)).sum().backward()
        return grad_of(a), seen

    same(program)


def test_diagonal_second_order_is_torchs() -> None:
    def program(t: Any) -> Any:
        a = t.ones(3, 4, dtype=t.float64, requires_grad=True)
        v = t.tensor([1.0, 2.0, 3.0], dtype=t.float64, requires_grad=True)
        (g,) = t.autograd.grad(a.diagonal(1), a, v, create_graph=True)
        fn = g.grad_fn
        facts = [g, g._version, fn.name(), fn._saved_offset, fn._saved_dim1, fn._saved_dim2]
        (g * t.arange(12.0, dtype=t.float64).reshape(3, 4)).sum().backward()
        return [*facts, grad_of(v)]

    same(program)


def test_in_place_through_the_diagonal() -> None:
    def program(t: Any) -> Any:
        a = t.ones(3, 3, requires_grad=True)
        refused = error_of(lambda: a.diagonal().mul_(2))
        b = a * 1
        d = b.diagonal()
        d.mul_(t.tensor([1.0, 2.0, 3.0]))
        names = (b.grad_fn.name(), d.grad_fn.name(), b._version, d._version)
        (b * t.arange(9.0).reshape(3, 3)).sum().backward()
        return refused, names, b, grad_of(a)

    same(program)


def test_a_write_to_the_base_reaches_the_diagonal_graph() -> None:
    def program(t: Any) -> Any:
        a = t.ones(3, 3, requires_grad=True)
        b = a * 2
        d = b.diagonal()
        b.add_(1.0)
        fn = d.grad_fn
        d.sum().backward()
        return fn.name(), d, grad_of(a)

    same(program)
