"""numpy's floating-point reports: every op that computes runs with them off; the views do not.

:data:`ownership.ops.table.NO_ARITHMETIC` names the ops installed without the ``quiet`` wrapper
(they compute no element). These tests hold the registry to that list, keep the list to the
view ops, and run each of them, forward and backward, on inf and NaN with numpy told to raise
and warnings turned into errors, under torch and ownership alike.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from ownership.op_registry import OPS
from ownership.ops import table

from support.differential import same
from support.gradients import plain


@pytest.fixture
def numpy_raises() -> Iterator[None]:
    """numpy told to raise on every floating-point error, and warnings made errors."""
    before = np.seterr(all="raise")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            yield
    finally:
        np.seterr(**before)


def test_the_registry_quiets_every_op_but_the_listed_ones() -> None:
    for name in table.__all__:
        installed, op = OPS[name], getattr(table, name)
        if name in table.NO_ARITHMETIC:
            assert installed is op, name
        else:
            assert installed is not op and installed.__wrapped__ is op, name  # type: ignore[attr-defined]


def test_only_view_ops_go_unquieted() -> None:
    assert table.NO_ARITHMETIC.issubset(table.__all__)
    assert {getattr(table, name).__module__ for name in table.NO_ARITHMETIC} == {
        "ownership.ops.views"
    }


@pytest.mark.usefixtures("numpy_raises")
def test_views_of_inf_and_nan_with_numpy_told_to_raise() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([[float("inf"), float("nan"), 1.0], [-1.0, 0.0, 3.0]], requires_grad=True)
        outs = [
            x.view(3, 2),
            x.reshape(6),
            x.t().reshape(6),  # not viewable: the copy path
            x.T,
            x.mT,
            x.flatten(),
            x.transpose(0, 1),
            x.permute(1, 0),
            x.unsqueeze(0).squeeze(0),
            x.expand(2, 2, 3),
            x.narrow(1, 1, 2),
            x.select(0, 1),
            x[:, 1:],
        ]
        for out in outs:
            out.sum().backward(retain_graph=True)
        return [*outs, [o.grad_fn for o in outs], plain(x.grad)]

    same(program)
    assert np.geterr()["invalid"] == "raise"
