"""``out=`` of the functions that do not write it: torch writes the result into the given
tensor; of ownership's functions the pointwise ones write it (``ownership.out_argument``,
tested in ``inplace/test_out_argument.py``), and every other function that takes ``out``
refuses a given one once its arguments bind (``ownership.ops.out_variants.refuse_out``), never
ignoring it. Here the refusal, the given tensor
untouched, and what torch checks before ``out`` (argument errors, ``out=None``) as torch does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import ownership
from ownership.core import binder
from ownership.ops.out_variants import WRITES_OUT

from support.differential import same

X = ownership.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
INDEX = ownership.tensor([[0, 1, 2], [2, 1, 0]])
B = ownership.tensor([[True, False, True], [False, True, True]])
M = ownership.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]])

# a call of every kind of function that takes ``out``, each with arguments that bind
CALLS: dict[str, Callable[..., Any]] = {
    "where": lambda out: ownership.where(B, X, X, out=out),
    "sum dim": lambda out: ownership.sum(X, 0, out=out),
    "mean dim": lambda out: ownership.mean(X, 1, out=out),
    "cumsum": lambda out: ownership.cumsum(X, 0, out=out),
    "matmul": lambda out: ownership.matmul(X, M, out=out),
    "mm": lambda out: ownership.mm(X, M, out=out),
    "addmm": lambda out: ownership.addmm(ownership.zeros(2, 2), X, M, out=out),
    "cat": lambda out: ownership.cat([X, X], out=out),
    "stack": lambda out: ownership.stack([X, X], out=out),
    "gather": lambda out: ownership.gather(X, 1, INDEX, out=out),
    "tril": lambda out: ownership.tril(X, out=out),
    "threshold": lambda out: ownership.threshold(X, 0.0, -1.0, out=out),
    "linspace": lambda out: ownership.linspace(0.0, 1.0, 6, out=out),
    "searchsorted": lambda out: ownership.searchsorted(ownership.tensor([1.0, 2.0]), X, out=out),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_given_out_is_refused_and_left_untouched(call: str) -> None:
    out = ownership.full((2, 3), 7.0)
    with pytest.raises(RuntimeError, match=r"^\w+\(out=\.\.\.\) is not supported by ownership$"):
        CALLS[call](out)
    assert out.tolist() == [[7.0] * 3] * 2
    assert out._version == 0


def test_every_parser_with_an_out_parameter_refuses_it() -> None:
    """The refusal is the parser's (one place): every parser whose signatures have ``out``
    refuses it unless its function writes it; ``out`` is keyword-only in all of them (the
    parser looks for it among the keywords only)."""
    parsers = [declaration.binding for declaration in binder.declared()]
    with_out = [p for p in parsers if any(q.name == "out" for s in p.signatures for q in s.params)]
    assert len(with_out) > 50
    for parser in with_out:
        writes = parser.name in WRITES_OUT
        assert parser.has_out is not writes, parser.name
        for signature in parser.signatures:
            assert all(q.kwonly for q in signature.params if q.name == "out"), parser.name


def test_argument_errors_come_before_out() -> None:
    def program(t: Any) -> Any:
        t.maximum(t.ones(2), "x", out=t.zeros(2))

    assert "must be Tensor, not str" in same(program).message


def test_explicit_out_none_computes() -> None:
    """``out=None`` is the default: the function computes as without it."""
    same(
        lambda t: [
            t.add(t.ones(2), 1, out=None),
            t.sum(t.ones(2, 3), 1, out=None),
            t.where(t.tensor([True, False]), t.ones(2), t.zeros(2), out=None),
            t.cat([t.ones(2), t.zeros(1)], out=None),
        ]
    )
