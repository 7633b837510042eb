"""Assignments torch validates: ``.grad``, ``.data``, their deletion, and ``numpy()`` by grad mode."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import same

GRADS: dict[str, Any] = {
    "itself": lambda t, x: x,
    "itself_detached": lambda t, x: x.detach(),
    "a_view_of_itself": lambda t, x: x[:],
    "wrong_shape": lambda t, x: t.ones(2),
    "float64": lambda t, x: t.ones(3, dtype=t.float64),
    "int64": lambda t, x: t.ones(3, dtype=t.int64),
    "int32": lambda t, x: t.ones(3, dtype=t.int32),
    "bool": lambda t, x: t.ones(3, dtype=t.bool),
    "a_list": lambda t, x: [1.0, 2.0, 3.0],
    "none": lambda t, x: None,
}


@pytest.mark.parametrize("case", sorted(GRADS))
@pytest.mark.parametrize("requires_grad", [True, False])
def test_assigning_grad(case: str, requires_grad: bool) -> None:
    def program(t):
        x = t.ones(3, requires_grad=requires_grad)
        x.grad = GRADS[case](t, x)
        return x.grad

    same(program)


DATA: dict[str, Any] = {
    "int64_on_a_leaf_requiring_grad": (lambda t: t.ones(3, requires_grad=True), "int64"),
    "int64_on_a_non_leaf": (lambda t: t.ones(3, requires_grad=True) * 2, "int64"),
    "bool_on_a_leaf_requiring_grad": (lambda t: t.ones(3, requires_grad=True), "bool"),
    "float64_on_a_leaf_requiring_grad": (lambda t: t.ones(3, requires_grad=True), "float64"),
    "int64_on_a_plain_tensor": (lambda t: t.ones(3), "int64"),
}


@pytest.mark.parametrize("case", sorted(DATA))
def test_assigning_data(case: str) -> None:
    make, dtype = DATA[case]

    def program(t):
        x = make(t)
        x.data = t.tensor([1, 0, 2]).to(getattr(t, dtype))
        return [x.dtype, x.requires_grad, x.detach()]

    same(program)


def test_deleting_data_or_requires_grad_is_torchs_runtime_error() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        errors = []
        for name in ("data", "requires_grad"):
            try:
                delattr(x, name)
            except RuntimeError as e:
                errors.append(str(e))
        del x.grad  # allowed: the same as x.grad = None
        return [errors, x.grad, x.data]

    same(program)


def test_numpy_of_a_tensor_requiring_grad_is_allowed_under_no_grad() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        with t.no_grad():
            a, b = x.numpy(), y.numpy()
            c = np.asarray(x)
        x.numpy(force=True)
        return [a.tolist(), b.tolist(), c.tolist()]

    same(program)


@pytest.mark.parametrize("how", ["numpy", "asarray"])
def test_numpy_of_a_tensor_requiring_grad_is_refused_with_grad_mode_on(how: str) -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        return x.numpy() if how == "numpy" else np.asarray(x)

    same(program)


@pytest.mark.parametrize("value", [3, 1, 0, None, np.bool_(True), 1.0, True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_assigning_requires_grad_takes_only_a_bool(value: Any, dtype: str) -> None:
    def program(t: Any) -> Any:
        x = t.ones(2, dtype=getattr(t, dtype))
        x.requires_grad = value
        return x.requires_grad

    same(program)


def test_a_tensor_keeps_its_users_attributes_as_torchs() -> None:
    """A tensor takes attributes of the user's own (``__dict__``): kept by deepcopy and pickle,
    not by ``detach()``, views or ``.data``; ``del`` removes one."""
    import copy
    import pickle

    def program(t: Any) -> Any:
        x = t.ones(2, requires_grad=True)
        x.note = "w"
        p = t.nn.Parameter(t.ones(1))
        p.tag = 1
        seen = [
            x.note,
            x.__dict__,
            hasattr(x.detach(), "note"),
            x[0:1].__dict__,
            x.data.__dict__,
            copy.deepcopy(x).__dict__,
            pickle.loads(pickle.dumps(x)).__dict__,
            p.__dict__,
        ]
        del x.note
        return [*seen, x.__dict__, hasattr(x, "note")]

    same(program)
