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

from ownership.core.op_registry import OPS
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
    of_shapes = {name for name in table.NO_ARITHMETIC if name.endswith("_as")}
    assert of_shapes == {"view_as", "reshape_as", "expand_as"}  # a view op of another's shape
    assert {name.removesuffix("_as") for name in of_shapes} <= table.NO_ARITHMETIC
    assert {getattr(table, name).__module__ for name in table.OPERATORS} == {
        "ownership.ops.tensor_operators"  # an operator torch's mode sees by its name: calls an op
    }
    itself = {"cpu", "positive"}  # the tensor itself (``positive`` refuses a bool tensor)
    itself |= {"is_contiguous"}  # what its strides say
    assert itself <= table.NO_ARITHMETIC
    own = {getattr(table, name).__module__ for name in table.OWN_STATE}  # core's, by torch's names
    assert own == {
        "ownership.core.tensor",
        "ownership.core.tensor_metadata",
        "ownership.core.tensor_autograd",
    }
    assert {getattr(table, name).__module__ for name in table.CONVERSIONS} == {
        "ownership.ops.tensor_conversion"
    }
    views = table.NO_ARITHMETIC - of_shapes - table.OPERATORS - itself - table.OWN_STATE
    views -= table.CONVERSIONS
    assert {getattr(table, name).__module__ for name in views} == {"ownership.ops.views"}


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


def test_ops_keep_numpy_quiet_and_restore_its_state() -> None:
    """With numpy told to raise, the ops compute inf and NaN as torch does, forward and
    backward; a refusal inside one leaves numpy's state as it was."""

    def program(t: ModuleType) -> Any:
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            x = t.tensor([3.0e38, -1.0, 0.0, float("nan")], requires_grad=True)
            outs = [x * 10.0, x * x, x / 0.0, x.exp(), x.reciprocal(), x.log(), x.sqrt()]
            outs += [x.tanh(), x + x, x - 1.0, x.add(x, alpha=2.0), x.sub(3.0e38, alpha=-1)]
            for out in outs:
                out.sum().backward(retain_graph=True)
            refused = None
            try:
                t.mul(x, t.ones(3))
            except RuntimeError as e:
                refused = str(e)
            state = np.geterr()
        return [*outs, plain(x.grad), refused, state]

    same(program)


def test_the_operators_run_their_op_quiet_and_restore_numpy_state() -> None:
    """The binary operators run the table's quiet op: inf and NaN computed with numpy told to
    raise, in place too, numpy's state restored after a refusal, another operand left to
    Python."""

    def program(t: ModuleType) -> Any:
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            x = t.tensor([3.0e38, -1.0, 0.0, float("nan")])
            m = x.reshape(2, 2) * 1e30
            outs = [m @ m, x @ x, x * 10.0, 10.0 * x, x + x, x - -3.0e38, x / 0.0, 1.0 / x]
            outs += [x**2.0, 2.0**x]
            outs += [x // 0.0, x % 0.0, x < x, x == x, x.int() << 3, x.bool() & True]
            y = x.clone()
            y *= 10.0
            y -= -3.0e38
            refused = None
            try:
                y += t.ones(3)
            except RuntimeError as e:
                refused = str(e)
            foreign = x.__add__([1.0]), x.__rmul__("a")
            state = np.geterr()
        return [*outs, y, refused, foreign, state]

    same(program)


def test_the_operators_call_the_ops_the_table_quiets() -> None:
    """Each binary operator made by ``tensor_operators._binary`` names an op of the table, one
    the registry quiets."""
    from ownership.ops.tensor_operators import TensorOperators

    made = {
        name: method
        for name, method in vars(TensorOperators).items()
        if getattr(method, "__module__", None) == "ownership.ops.tensor_operators"
        and method.__code__.co_name == "operator"
    }
    assert {"__add__", "__rmul__", "__isub__", "__matmul__"} <= set(made)
    for name, method in made.items():
        closure = dict(
            zip(
                method.__code__.co_freevars,
                [c.cell_contents for c in method.__closure__],
                strict=True,
            )
        )
        op = closure["name"]
        assert op in table.__all__ and op not in table.NO_ARITHMETIC, name
        assert OPS[op].__wrapped__ is getattr(table, op), name
