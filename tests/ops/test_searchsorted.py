"""``searchsorted`` under torch and ownership: sides, n-d boundaries, numbers, dtypes mixed, NaN
among the values and among the boundaries (torch's binary search, not a NaN-aware sort), a
``sorter``, empty inputs, and torch's refusals."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def _seq(t: Any) -> Any:
    return t.tensor([1.0, 3.0, 3.0, 5.0, 7.0])


NAN = float("nan")
CALLS: dict[str, Any] = {
    "values": lambda t: t.searchsorted(_seq(t), t.tensor([0.0, 3.0, 4.0, 7.0, 9.0])),
    "right=True": lambda t: t.searchsorted(_seq(t), t.tensor([3.0, 7.0]), right=True),
    "side='right'": lambda t: t.searchsorted(_seq(t), t.tensor([3.0, 7.0]), side="right"),
    "side='left', right=False": lambda t: t.searchsorted(
        _seq(t), t.tensor([3.0]), side="left", right=False
    ),
    "2-d values, 1-d boundaries": lambda t: t.searchsorted(_seq(t), t.tensor([[3.0], [6.0]])),
    "0-d value": lambda t: t.searchsorted(_seq(t), t.tensor(4.0)),
    "a float": lambda t: t.searchsorted(_seq(t), 3.0),
    "an int": lambda t: t.searchsorted(_seq(t), 4),
    "a bool": lambda t: t.searchsorted(_seq(t), True),
    "a float beside float32 boundaries (0.1)": lambda t: t.searchsorted(t.tensor([0.1, 0.2]), 0.1),
    "n-d rows": lambda t: t.searchsorted(
        t.tensor([[1, 3, 5], [2, 4, 6]]), t.tensor([[3, 6], [1, 5]]), right=True
    ),
    "int boundaries, float values": lambda t: t.searchsorted(t.tensor([1, 2, 3]), 2.5),
    "float32 boundaries, float64 values": lambda t: t.searchsorted(
        t.tensor([1.0, 2.0]), t.tensor([1.5], dtype=t.float64)
    ),
    "int32 result": lambda t: t.searchsorted(_seq(t), t.tensor([4.0]), out_int32=True),
    "NaN values": lambda t: t.searchsorted(_seq(t), t.tensor([NAN, 4.0]), side="right"),
    "NaN boundaries": lambda t: t.searchsorted(
        t.tensor([1.0, NAN, 3.0]), t.tensor([NAN, 4.0, 2.0])
    ),
    "sorter": lambda t: t.searchsorted(
        t.tensor([5.0, 1.0, 3.0]), t.tensor([2.0, 4.0, 6.0]), sorter=t.tensor([1, 2, 0])
    ),
    "sorter, unsorted order": lambda t: t.searchsorted(
        t.tensor([1.0, 2.0]), t.tensor([1.0]), sorter=t.tensor([1, 0]), side="right"
    ),
    "boundaries requiring grad": lambda t: t.searchsorted(
        t.tensor([0.1, 0.3, 0.5, 0.9], requires_grad=True), t.tensor(0.4, requires_grad=True)
    ),
    "no values": lambda t: t.searchsorted(_seq(t), t.zeros(0)),
    "no boundaries": lambda t: t.searchsorted(t.zeros(0), t.tensor([1.0])),
    "side and right opposite": lambda t: t.searchsorted(
        _seq(t), t.tensor([1.0]), right=True, side="left"
    ),
    "unknown side": lambda t: t.searchsorted(_seq(t), t.tensor([1.0]), side="middle"),
    "0-d boundaries": lambda t: t.searchsorted(t.tensor(1.0), t.tensor([1.0])),
    "a number with 2-d boundaries": lambda t: t.searchsorted(t.ones(2, 2), 2.0),
    "rows that do not match": lambda t: t.searchsorted(t.ones(2, 2), t.ones(3, 1)),
    "bool boundaries": lambda t: t.searchsorted(t.tensor([False, True]), t.tensor([True])),
    "float sorter": lambda t: t.searchsorted(_seq(t), t.tensor([2.0]), sorter=t.zeros(5)),
    "sorter of another size": lambda t: t.searchsorted(
        _seq(t), t.tensor([2.0]), sorter=t.tensor([0, 1])
    ),
    "sorter out of range": lambda t: t.searchsorted(
        _seq(t), t.tensor([2.0]), sorter=t.tensor([0, 1, 2, 3, 9])
    ),
    "a str": lambda t: t.searchsorted(_seq(t), "a"),
    "a list of boundaries": lambda t: t.searchsorted([1.0], _seq(t)),
}


@pytest.mark.parametrize("call", CALLS)
def test_searchsorted_is_torchs(call: str) -> None:
    same(lambda t: (lambda r: (r, r.requires_grad, r.grad_fn))(CALLS[call](t)))


def test_non_contiguous_operands() -> None:
    """torch warns once per program about each non-contiguous operand, so whether a call warns
    depends on what ran before it: the values are compared without the warnings here, and
    :func:`test_the_non_contiguous_warnings_are_torchs` compares those."""

    def program(t: Any) -> Any:
        rows = t.tensor([[1.0, 3.0], [2.0, 4.0]]).t()  # rows [1, 2] and [3, 4], not contiguous
        return t.searchsorted(rows, t.tensor([[1.5, 2.5, 3.5, 4.5]]).t().reshape(2, 2).t().t())

    same(program, warnings=False)


def test_the_non_contiguous_warnings_are_torchs() -> None:
    """Told to warn every time (``set_warn_always``), both engines give the three warnings, in
    torch's order."""

    def program(t: Any) -> Any:
        values = t.tensor([1.0, 2.0, 3.0, 4.0])[::2]
        boundaries = t.tensor([[1.0, 2.0], [3.0, 4.0]]).t()[0]
        sorter = t.tensor([0, 0, 1, 1])[::2]
        t.set_warn_always(True)
        try:
            return t.searchsorted(boundaries, values, sorter=sorter), t.is_warn_always_enabled()
        finally:
            t.set_warn_always(False)

    same(program)
