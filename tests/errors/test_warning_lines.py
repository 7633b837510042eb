"""Where each warning points, as a learner reads it first: torch's C++ warnings name the user's
line (``core.warn_once.warn_at_user``), however many engine frames lie between; those torch
gives from its own Python files name a line of the library. ``same`` compares where each
warning points (``compare.run``: "at line N" of the program, or "in the library")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from support.differential import every_warning, same


@pytest.fixture(autouse=True)
def warn_always() -> Iterator[None]:
    """Every warning every time in both engines (torch gives ``x.T``'s once per process)."""
    with every_warning():
        yield


def _mask() -> Any:
    return np.array([1, 0, 1], dtype=np.uint8)


def _write(t: Any, key: Any, value: Any) -> Any:
    t[key] = value
    return t


PROGRAMS = {
    "var_method": lambda t: t.ones(1).var(),
    "var_function": lambda t: t.var(t.ones(1)),
    "tensor_of_a_tensor": lambda t: t.tensor(t.ones(2)),
    "T_of_3_dims": lambda t: t.ones(2, 3, 4).T,
    "mT_of_0_dims": lambda t: t.tensor(1.0).mT,
    "byte_mask_read": lambda t: t.tensor([1.0, 2.0, 3.0])[_mask()],
    "byte_mask_write": lambda t: _write(t.zeros(3), _mask(), 1.0),
    "sequence_key": lambda t: t.zeros(3, 3)[[slice(None), 0]],
    "expanded_index_put": lambda t: _write(t.zeros(1).expand(3), t.tensor([0, 1]), 1.0),
    "expanded_masked_fill": lambda t: (
        t.zeros(1).expand(3).masked_fill_(t.tensor([True, False, True]), 1.0)
    ),
    "out_resized": lambda t: t.add(t.ones(3), 1, out=t.zeros(5)),
    "grad_of_a_non_leaf": lambda t: (t.ones(2, requires_grad=True) * 2).grad,
    "mse_loss_function": lambda t: t.nn.functional.mse_loss(t.zeros(3), t.zeros(4, 1)),
    "mse_loss_module": lambda t: t.nn.MSELoss()(t.zeros(3), t.zeros(4, 1)),
}


@pytest.mark.parametrize("program", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_a_warning_names_the_line_torchs_names(program: Any) -> None:
    same(program)


def test_a_byte_mask_warns_again_in_the_backward_from_the_library() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 5.0, 0.0], requires_grad=True)
        x[_mask()].sum().backward()
        return x.grad

    same(program)
