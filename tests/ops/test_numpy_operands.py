"""The Python operators with a numpy array operand, as torch 2.13 answers them.

torch's operators refuse a numpy array (``NotImplemented``), so Python asks numpy's reflected
operator: numpy computes over the tensor's ``__array__`` (refused for a tensor that requires grad)
and wraps its result through the tensor's ``__array_wrap__`` (numpy's dtype promotion, a new
tensor, numpy 2's DeprecationWarning about the wrapper's signature, which the harness compares
too). numpy defers its own forward operators and comparisons to a tensor (``__array_priority__``),
so ``a + x`` and ``x < a`` are Python's TypeError; ``x == a`` alone reads the array as a tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import same


def _x(t: Any, requires_grad: bool = False) -> Any:
    return t.tensor([1.0, 5.0, 0.0], requires_grad=requires_grad)


def _a() -> Any:
    return np.array([1.0, 2.0, 3.0], dtype=np.float32)


def _i(t: Any) -> Any:
    return t.tensor([1, 2, 3])


def _in_place(step: Any) -> Any:
    """``x OP= a``: whether ``x`` is still the tensor it was, its version and its values."""

    def program(t: Any) -> Any:
        x = _x(t)
        before = x
        x = step(x)
        return [x is before, x, before, before._version]

    return program


COMPUTED: dict[str, Any] = {
    "add": lambda t: _x(t) + _a(),
    "sub": lambda t: _x(t) - _a(),
    "mul": lambda t: _x(t) * _a(),
    "truediv": lambda t: _x(t) / _a(),
    "rtruediv": lambda t: _a() / _x(t),
    "floordiv": lambda t: _x(t) // _a(),
    "mod": lambda t: _x(t) % _a(),
    "pow": lambda t: _x(t) ** _a(),
    "and": lambda t: _i(t) & np.array([1, 1, 1]),
    "or": lambda t: _i(t) | np.array([1, 1, 1]),
    "xor": lambda t: _i(t) ^ np.array([1, 1, 1]),
    "lshift": lambda t: _i(t) << np.array([1, 2, 3]),
    "rshift": lambda t: _i(t) >> np.array([1, 2, 3]),
    "matmul": lambda t: _x(t) @ np.ones((3, 2), dtype=np.float32),
    "numpy_promotes_int_and_float32": lambda t: _i(t) + _a(),
    "numpy_promotes_a_0d_float64": lambda t: _x(t) + np.array(2.0),
    "numpy_promotes_int32": lambda t: _x(t) + np.array([1, 2, 3], dtype=np.int32),
    "broadcast": lambda t: _x(t) + np.ones((2, 3), dtype=np.float32),
    "0d_result": lambda t: t.tensor(1.0) + np.array(2.0, dtype=np.float32),
    "f_order_result": lambda t: t.tensor([[1.0, 2.0], [3.0, 4.0]]).t() + np.ones((2, 2)),
    "iadd": _in_place(lambda x: x.__iadd__(_a())),
    "isub": _in_place(lambda x: x.__isub__(_a())),
    "imul": _in_place(lambda x: x.__imul__(_a())),
    "itruediv": _in_place(lambda x: x.__itruediv__(_a())),
    "ipow": _in_place(lambda x: x.__ipow__(_a())),
}


def _iadd(t: Any) -> Any:
    x = _x(t)
    before = x
    x += _a()
    return [x is before, x, before._version]


def _iadd_grad(t: Any) -> Any:
    x = _x(t, requires_grad=True) * 1
    x += _a()
    return x


REFUSED: dict[str, Any] = {
    # numpy's forward operators defer to a tensor, whose reflected ones refuse an array
    "radd": lambda t: _a() + _x(t),
    "rsub": lambda t: _a() - _x(t),
    "rmul": lambda t: _a() * _x(t),
    "rpow": lambda t: _a() ** _x(t),
    "rfloordiv": lambda t: _a() // _x(t),
    "rmod": lambda t: _a() % _x(t),
    "rand": lambda t: np.array([1, 2, 3]) & _i(t),
    "rmatmul": lambda t: np.ones((2, 3), dtype=np.float32) @ _x(t),
    "radd_0d": lambda t: np.array(1.0, dtype=np.float32) + _x(t),
    # comparisons: neither side takes the other
    "lt": lambda t: _x(t) < _a(),
    "le": lambda t: _x(t) <= _a(),
    "gt": lambda t: _x(t) > _a(),
    "ge": lambda t: _x(t) >= _a(),
    "rlt": lambda t: _a() < _x(t),
    "lt_0d": lambda t: _x(t) < np.array(1.0, dtype=np.float32),
    # numpy computes, and reads a tensor that requires grad through numpy()
    "add_grad": lambda t: _x(t, requires_grad=True) + _a(),
    "sub_grad": lambda t: _x(t, requires_grad=True) - _a(),
    "matmul_grad": lambda t: _x(t, requires_grad=True) @ np.ones((3, 2), dtype=np.float32),
    "rtruediv_grad": lambda t: _a() / _x(t, requires_grad=True),
    "iadd_grad": _iadd_grad,
    # numpy's own broadcasting error
    "broadcast": lambda t: _x(t) + np.ones(2, dtype=np.float32),
    "matmul_shapes": lambda t: _x(t) @ np.ones(2, dtype=np.float32),
}

EQUALITY: dict[str, Any] = {
    "eq": lambda t: _x(t) == _a(),
    "req": lambda t: _a() == _x(t),
    "eq_grad": lambda t: _x(t, requires_grad=True) == _a(),
    "eq_promotes": lambda t: _i(t) == np.array([1.5, 2.0, 3.0]),
    "eq_float64": lambda t: t.tensor([0.1]) == np.array([0.1]),
    "eq_broadcast": lambda t: _x(t) == np.ones((2, 3)),
    "eq_shapes": lambda t: _x(t) == np.ones(2),
    "eq_strings": lambda t: _x(t) == np.array(["1", "a", "b"]),
    "ne": lambda t: _x(t) != _a(),
    "ne_grad": lambda t: _x(t, requires_grad=True) != _a(),
}


@pytest.mark.parametrize("program", COMPUTED.values(), ids=COMPUTED.keys())
def test_numpy_computes_and_the_tensor_wraps_its_result(program: Any) -> None:
    same(program)


def test_x_plus_equals_an_array_makes_a_new_tensor() -> None:
    assert same(_iadd)[:1] == [False]


@pytest.mark.parametrize("program", REFUSED.values(), ids=REFUSED.keys())
def test_refused_as_torch_refuses_it(program: Any) -> None:
    same(program)


@pytest.mark.parametrize("program", EQUALITY.values(), ids=EQUALITY.keys())
def test_equality_reads_the_array_as_a_tensor(program: Any) -> None:
    same(program)


def test_a_bool_array_indexes_as_a_mask() -> None:
    def program(t: Any) -> Any:
        x = _x(t, requires_grad=True)
        y = x[np.array([True, False, True])]
        y.sum().backward()
        return [y, y.grad_fn, x.grad, _x(t)[np.array([0, 2])]]

    same(program)


def test_numpy_functions_of_a_tensor_are_tensors() -> None:
    same(lambda t: [np.sin(_x(t)), np.add(_x(t), 1.0), np.multiply(_a(), _x(t))])
