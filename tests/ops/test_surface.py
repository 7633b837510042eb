"""The Tensor surface: every implemented op is reachable the way torch reaches it.

An op in :mod:`ownership.ops.table` that torch has as a Tensor method is a method of ownership's
Tensor, and one that torch has as a ``torch.xxx`` function is an ``ownership.xxx`` function (and
no op is reachable in ownership the way torch does not reach it). The ops that were implemented
but unreachable (``sqrt_``, ``log_``, ``abs_``, ``sign``, ``reciprocal``, ``bmm``,
``logical_and``, ``logical_or``, ``addmm``, ``absolute``, the in-place functions ``torch.relu_``
and the like) run under both engines here.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
import torch

import ownership
from ownership.ops import table

from support.differential import same
from support.gradients import plain

# Registry names that are no torch method or function of that name: the reflected operators
# (``2 / x``, ``2 ** x``), ``~x`` (torch's ``bitwise_not``, not ``logical_not``), indexing
# (``x[i]``, ``x[i] = v``), the gradient of indexing, and the aten views torch reaches only
# through indexing or internally, and a number shifted by a tensor (``1 << x``).
INTERNAL = {
    "rdiv",
    "rpow",
    "invert",
    "getitem",
    "setitem",
    "embed",
    "slice",
    "alias",
    "shift_of_number",
}


def test_nn_functional_lists_the_functions_that_call_the_table() -> None:
    """``table.NN_FUNCTIONAL`` is kept by hand beside ``nn/functional.py`` (a lower layer cannot
    read a higher one): each ``F`` function that calls a table op is listed, and only those, but
    ``F.linear`` (written by hand over ``ops.linear``) and ``F.threshold_`` (torch's is
    ``torch.threshold_``, seen by its mode as a ``torch`` function)."""
    by_id = {id(getattr(table, name)): name for name in table.__all__}
    functional = ownership.nn.functional
    calling = {
        by_id[id(wrapped)]
        for name in functional.__all__
        if id(wrapped := getattr(getattr(functional, name), "__wrapped__", None)) in by_id
    }
    assert calling - {"threshold_"} | {"linear"} == table.NN_FUNCTIONAL


def _function(module: Any, name: str) -> bool:
    """Whether ``module.<name>`` is a function (``torch.cpu`` is a module, which ownership lacks)."""
    try:
        return callable(getattr(module, name))
    except (AttributeError, NotImplementedError):
        return False


@pytest.mark.parametrize("name", sorted(table.__all__))
def test_each_op_is_reached_as_torch_reaches_it(name: str) -> None:
    if name in table.NN_FUNCTIONAL:  # a function of nn.functional (``_threshold``: F.threshold)
        assert hasattr(torch.nn.functional, name)
        assert hasattr(ownership.nn.functional, name.lstrip("_"))
        return
    as_torch = (hasattr(torch.Tensor, name), _function(torch, name))
    as_ownership = (hasattr(ownership.Tensor, name), _function(ownership, name))
    if name in INTERNAL:
        assert as_torch == (False, False), f"{name} is reachable in torch: reach it too"
    else:
        assert as_ownership == as_torch, f"torch (method, function): {as_torch}"


def test_the_registry_lists_the_table_and_nothing_else() -> None:
    from ownership.core.op_registry import OPS, ops

    assert sorted(OPS) == sorted(table.__all__)
    assert all(getattr(ops, name) is OPS[name] for name in table.__all__)
    with pytest.raises(AttributeError):
        ops.no_such_op


@pytest.mark.parametrize("name", ["sqrt_", "log_", "abs_"])
def test_unary_in_place_methods(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([4.0, 0.25, 9.0], requires_grad=True)
        y = x * 1
        out = getattr(y, name)()
        out.sum().backward()
        return [out is y, y, y._version, y.grad_fn, plain(x.grad)]

    same(program)


@pytest.mark.parametrize("name", ["sqrt_", "log_", "abs_", "relu_", "neg_", "zero_"])
def test_in_place_functions(name: str) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([4.0, -0.25, 9.0])
        out = getattr(t, name)(x)
        leaf = t.tensor([1.0], requires_grad=True)
        return [out is x, x, x._version, getattr(t, name)(leaf) if name != "zero_" else None]

    same(program)


def test_fill_clamp_and_as_strided_functions() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = t.zeros(4), t.tensor([-2.0, 0.5, 3.0]), t.arange(6.0)
        return [
            t.fill_(a, 2.5),
            t.clamp_(b, min=-1.0, max=1.0),
            t.as_strided_(c, (2, 2), (1, 2), 1),
            [a._version, b._version, c._version, c.shape, c.stride()],
        ]

    same(program)


def test_sign_and_reciprocal() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([-2.0, 0.0, 4.0], requires_grad=True)
        s, r = x.sign(), x.reciprocal()
        (s.sum() + r[2]).backward()
        ints = t.tensor([2, 4])
        return [s, r, plain(x.grad), t.sign(x), t.reciprocal(ints), ints.reciprocal()]

    same(program)


def test_logical_ops() -> None:
    def program(t: ModuleType) -> Any:
        p, q = t.tensor([True, False, True]), t.tensor([1, 0, 0])
        return [
            p.logical_and(q),
            p.logical_or(q),
            t.logical_and(p, q),
            t.logical_or(q, p),
        ]

    same(program)


def test_comparison_functions() -> None:
    def program(t: ModuleType) -> Any:
        x, y = t.tensor([1.0, 2.0, 3.0]), t.tensor([2.0, 2.0, 2.0])
        return [t.ne(x, y), t.lt(x, y), t.le(x, 2), t.gt(x, y), t.ge(x, 2.0), t.gt(x, other=y)]

    same(program)


def test_all_any_and_threshold_functions() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = t.threshold(x, 0.0, -5.0)
        y.sum().backward()
        flags = t.tensor([True, False])
        return [t.all(flags), t.any(flags), y, plain(x.grad)]

    same(program)


def test_bmm_method_and_function() -> None:
    def program(t: ModuleType) -> Any:
        a = t.arange(12.0).reshape(2, 2, 3).requires_grad_()
        b = t.ones(2, 3, 2)
        y, z = a.bmm(b), t.bmm(a, mat2=b)
        (y.sum() + z.sum()).backward()
        return [y, z, plain(a.grad)]

    same(program)


def test_addmm_method_and_absolute() -> None:
    def program(t: ModuleType) -> Any:
        bias = t.tensor([1.0, -1.0], requires_grad=True)
        m1, m2 = t.arange(6.0).reshape(3, 2), t.ones(2, 2)
        y = bias.addmm(m1, m2, beta=2, alpha=0.5)
        y.sum().backward()
        x = t.tensor([-1.5, 2.0], requires_grad=True)
        return [y, plain(bias.grad), x.absolute(), t.absolute(x)]

    same(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda t: t.tensor([1.0]).bmm(t.ones(1)),
        lambda t: t.tensor([True]).logical_and(1),
        lambda t: t.sqrt_(3.0),
        lambda t: t.fill_(t.zeros(2), "a"),
    ],
    ids=["bmm-1d", "logical-and-number", "sqrt-number", "fill-string"],
)
def test_refusals(program: Any) -> None:
    same(program)
