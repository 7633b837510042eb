"""The common method calls that skip the argument parser agree with torch and with the parser.

``x.sum()``, ``x.mean()``, ``x.sum(dim)``, ``x.mean(dim)`` (one int), ``x.expand(*ints)`` (or
one tuple of ints) and ``x.add_(tensor)`` (``alpha=`` a float) bind their arguments without
:mod:`ownership.arguments`; the same call
spelled so that the parser binds it (a keyword, an int ``alpha``) must give the same values,
dtypes, versions, ``grad_fn`` names and errors, and both must be torch's.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import ownership

from support.differential import same

Call = Callable[[ModuleType, Any], Any]

# (the fast spelling, the same call through the parser)
PAIRS: dict[str, tuple[Call, Call]] = {
    "sum": (lambda t, x: x.sum(), lambda t, x: x.sum(dtype=None)),
    "mean": (lambda t, x: x.mean(), lambda t, x: x.mean(dtype=None)),
    "sum dim": (lambda t, x: x.sum(1), lambda t, x: x.sum(dim=1)),
    "sum negative dim": (lambda t, x: x.sum(-2), lambda t, x: x.sum(dim=[-2])),
    "sum bad dim": (lambda t, x: x.sum(5), lambda t, x: x.sum(dim=5)),
    "mean dim": (lambda t, x: x.mean(0), lambda t, x: x.mean(dim=0)),
    "mean bad dim": (lambda t, x: x.mean(-3), lambda t, x: x.mean(dim=-3)),
    "expand ints": (lambda t, x: x[:, :1].expand(3, 4), lambda t, x: x[:, :1].expand(size=(3, 4))),
    "expand tuple": (
        lambda t, x: x[:1].expand((2, 3, 4)),
        lambda t, x: x[:1].expand(size=(2, 3, 4)),
    ),
    "expand -1": (lambda t, x: x[:1].expand(2, -1, 4), lambda t, x: x[:1].expand(size=[2, -1, 4])),
    "expand 0-d": (lambda t, x: x.sum().expand(3, 2), lambda t, x: x.sum().expand(size=(3, 2))),
    "expand 0-d to 0-d": (lambda t, x: x.sum().expand(()), lambda t, x: x.sum().expand(size=())),
    "expand 0-d to empty": (
        lambda t, x: x.sum().expand(0, 2),
        lambda t, x: x.sum().expand(size=(0, 2)),
    ),
    "expand bad": (lambda t, x: x.expand(3, 5), lambda t, x: x.expand(size=(3, 5))),
    "expand leading -1": (lambda t, x: x.expand(-1, 3, 4), lambda t, x: x.expand(size=(-1, 3, 4))),
    "expand too few": (lambda t, x: x.expand(4), lambda t, x: x.expand(size=(4,))),
    "add_": (lambda t, x: x.add_(x * 2), lambda t, x: x.add_(other=x * 2)),
    "add_ alpha": (
        lambda t, x: x.add_(x * 2, alpha=0.5),
        lambda t, x: x.add_(other=x * 2, alpha=0.5),
    ),
    "add_ broadcast": (lambda t, x: x.add_(x[0]), lambda t, x: x.add_(other=x[0])),
    "add_ outgrows": (lambda t, x: x[0].add_(x), lambda t, x: x[0].add_(other=x)),
    "add_ self": (lambda t, x: x.add_(x), lambda t, x: x.add_(other=x)),
}

INPUTS: dict[str, Callable[[ModuleType], Any]] = {
    "float32": lambda t: t.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4)),
    "float64 grad": lambda t: t.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True),
    "int64": lambda t: t.tensor(np.arange(12).reshape(3, 4)),
    "bool": lambda t: t.tensor(np.arange(12).reshape(3, 4) % 3 == 0),
}


def _facts(t: ModuleType, make: Callable[[ModuleType], Any], call: Call) -> Any:
    """The call's result with its name, version and the input's version; a non-leaf input
    (``x * 1``) where the input requires grad, so that in-place calls are allowed."""
    x = make(t)
    if x.requires_grad:
        x = x * 1
    out = call(t, x)
    name = None if out.grad_fn is None else out.grad_fn.name()
    if out.requires_grad:
        out.sum().backward()
    return out, out.dtype, name, out._version, x._version


@pytest.mark.parametrize("dtype", INPUTS)
@pytest.mark.parametrize("call", PAIRS)
@pytest.mark.parametrize("path", ["fast", "parsed"])
def test_each_spelling_is_torchs(call: str, dtype: str, path: str) -> None:
    fn = PAIRS[call][0 if path == "fast" else 1]
    same(lambda t: _facts(t, INPUTS[dtype], fn))


@pytest.mark.parametrize("dtype", INPUTS)
@pytest.mark.parametrize("call", PAIRS)
def test_the_fast_spelling_is_the_parsed_one(call: str, dtype: str) -> None:
    outcomes = []
    for fn in PAIRS[call]:
        try:
            out, *rest = _facts(ownership, INPUTS[dtype], fn)
            outcomes.append((out.tolist(), out.stride(), *rest))
        except (RuntimeError, TypeError, IndexError) as e:
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


def test_add_into_a_leaf_that_requires_grad_is_refused_as_in_torch() -> None:
    same(lambda t: t.ones(2, requires_grad=True).add_(t.ones(2)))
